# ruff: noqa: E501  (verbatim command output and file contents)
"""Qt 5.15 → Qt 6 migration of a qmake desktop app, planned over several turns in plan mode, then step 1 (French)."""

from make_sessions import Call, Session

PLAN_PATH = "/home/yann/.claude/plans/facturix-qt6.md"

PLAN = """# Migration Qt 5.15 → Qt 6.5 LTS (Facturix)

Contraintes : qmake reste (CMake = autre chantier) ; pas de Core5Compat ; `core/` doit compiler en Qt 5.15 ET Qt 6.5 jusqu'à la sortie de la 4.2.

1. `core/` : QRegExp → QRegularExpression (14 occurrences), QTextCodec → QStringConverter derrière un petit wrapper `#if QT_VERSION`. Tests `tst_core` dans les deux builds.
2. `core/` : `QString::midRef`/`QStringRef` → `QStringView` (9 occurrences).
3. `app/` (widgets) : `QDesktopWidget`, `QFontMetrics::width`, signaux `QOverload`.
4. `qml/` : `QtGraphicalEffects` → `MultiEffect`… bloqué tant qu'on ne sait pas pour Windows 7 (Qt 6 ne le supporte plus).
5. CI : job `build-qt6` en plus de `build-qt5`, non bloquant jusqu'à l'étape 3.

Aujourd'hui : étape 1 seulement."""

VALIDATION = '''#include "validation.h"
#include <QRegExp>

bool Validation::codePostalValide(const QString &cp)
{
    static const QRegExp rx("\\\\d{5}");
    return rx.exactMatch(cp);
}

bool Validation::numeroTvaValide(const QString &tva)
{
    static const QRegExp rx("FR[0-9A-Z]{2}\\\\d{9}");
    return rx.exactMatch(tva.simplified().remove(' '));
}
'''


def build() -> Session:
    s = Session("qt6-migration-plan-fr", cwd="/home/yann/dev/facturix", branch="chore/qt6-etape1",
                start="2026-03-12T09:05:33.871Z", version="2.1.57", slug="qt-six-migration-wren",
                permission_mode="plan", stop_reasons=True)
    s.user(
        "On doit passer Facturix de Qt 5.15 à Qt 6, la licence commerciale 5.15 n'est plus renouvelée en septembre. "
        "Je veux d'abord un plan, on en discute, on ne touche à rien pour l'instant.",
        wait=5,
    )
    s.bash("grep -rcE 'QRegExp|QTextCodec|midRef|QStringRef|QDesktopWidget|QtGraphicalEffects' --include=*.cpp --include=*.h --include=*.qml . | grep -v ':0$' | sort -t: -k2 -nr", '''./core/import/releve_csv.cpp:6
./core/validation.cpp:4
./core/export/fec.cpp:4
./app/mainwindow.cpp:3
./core/import/encodage.cpp:3
./qml/Apercu.qml:2
./app/dialogs/apropos.cpp:1''', desc="APIs retirées dans Qt 6")
    s.call(s.read_call("facturix.pro", '''TEMPLATE = subdirs
SUBDIRS = core app tests
app.depends = core
tests.depends = core
CONFIG += c++17
'''))
    s.say(
        "Premier inventaire : l'essentiel est dans `core/` (QRegExp, QTextCodec, QStringRef), un peu "
        "dans `app/`, et `qml/Apercu.qml` utilise `QtGraphicalEffects`, qui n'existe plus en Qt 6.\n\n"
        "Questions avant de proposer un ordre :\n"
        "1. qmake ou CMake ? Qt 6 pousse CMake, mais qmake6 fonctionne.\n"
        "2. Accepte-t-on `Core5Compat` pour aller vite (il garde `QRegExp`/`QTextCodec`) ?\n"
        "3. Quelle version cible ?"
    )
    s.turn_end()
    s.user(
        "1. qmake on garde, CMake c'est un autre chantier et Hugo le veut pour l'an prochain. "
        "2. non, pas de Core5Compat, sinon on ne l'enlèvera jamais, je connais l'équipe. "
        "3. 6.5, c'est la LTS, le 6.7 n'est plus maintenu par notre contrat",
        wait=90,
    )
    s.say(
        "Compris. Une conséquence à avoir en tête : Qt 6 ne supporte plus Windows 7. Est-ce que des "
        "clients tournent encore dessus ? Ça conditionne surtout la partie QML et l'installeur."
    )
    s.turn_end()
    s.user(
        "hmm. Ferrand Transports était encore sous Windows 7 l'an dernier. je ne sais pas si c'est toujours le cas, "
        "faut demander à Claire (support). et autre chose : core/ doit compiler avec les DEUX versions tant que la 4.2 n'est pas sortie, "
        "on fait encore des correctifs en 5.15",
        wait=120,
    )
    s.grep("QTextCodec", content='''core/import/encodage.cpp:3:#include <QTextCodec>
core/import/encodage.cpp:11:    QTextCodec *codec = QTextCodec::codecForName(nom.toLatin1());
core/import/encodage.cpp:14:    return codec->toUnicode(brut);''', path="core")
    s.call(Call("ExitPlanMode", {"plan": PLAN},
                "User has approved your plan. You can now start coding. Start with updating your todo list if applicable\n\n"
                f"Your plan has been saved to: {PLAN_PATH}\nYou can refer back to it if needed during implementation.\n\n## Approved Plan:\n{PLAN}",
                {"plan": PLAN, "isAgent": False, "filePath": PLAN_PATH}, secs=95))
    s.permission_mode = "default"
    s.say("Je commence l'étape 1 par `core/validation.cpp`, le plus petit fichier, pour caler le motif.")
    s.read("core/validation.cpp", VALIDATION)
    s.edit("core/validation.cpp", '''#include <QRegExp>

bool Validation::codePostalValide(const QString &cp)
{
    static const QRegExp rx("\\\\d{5}");
    return rx.exactMatch(cp);
}

bool Validation::numeroTvaValide(const QString &tva)
{
    static const QRegExp rx("FR[0-9A-Z]{2}\\\\d{9}");
    return rx.exactMatch(tva.simplified().remove(' '));
}''', '''#include <QRegularExpression>

bool Validation::codePostalValide(const QString &cp)
{
    static const QRegularExpression rx("\\\\d{5}");
    return rx.match(cp).hasMatch();
}

bool Validation::numeroTvaValide(const QString &tva)
{
    static const QRegularExpression rx("FR[0-9A-Z]{2}\\\\d{9}");
    return rx.match(tva.simplified().remove(' ')).hasMatch();
}''')
    s.bash("make -C build-qt5 -j8 check 2>&1 | tail -6", '''FAIL!  : TestValidation::codePostal(lettres apres) 'Validation::codePostalValide(cp) == attendu' returned FALSE. ()
   Loc: [../../tests/tst_validation.cpp(31)]
FAIL!  : TestValidation::numeroTva(espace final) 'Validation::numeroTvaValide(tva) == attendu' returned FALSE. ()
Totals: 41 passed, 2 failed, 0 skipped, 0 blacklisted, 12ms
********* Finished testing of TestValidation *********
make[1]: *** [Makefile:312: check] Error 1''', desc="Tests Qt 5.15", secs=70)
    s.say(
        "Deux échecs, et c'est une vraie différence de comportement : `QRegExp::exactMatch` exigeait "
        "que toute la chaîne corresponde, `QRegularExpression::match` accepte une correspondance "
        "partielle. `\"75001x\"` passait donc pour un code postal valide. Il faut ancrer le motif "
        "avec `QRegularExpression::anchoredPattern`, disponible depuis Qt 5.12, donc ça reste "
        "compatible avec le build 5.15."
    )
    s.edit("core/validation.cpp", '''    static const QRegularExpression rx("\\\\d{5}");''', '''    static const QRegularExpression rx(QRegularExpression::anchoredPattern("\\\\d{5}"));''')
    s.edit("core/validation.cpp", '''    static const QRegularExpression rx("FR[0-9A-Z]{2}\\\\d{9}");''', '''    static const QRegularExpression rx(QRegularExpression::anchoredPattern("FR[0-9A-Z]{2}\\\\d{9}"));''')
    s.bash("make -C build-qt5 -j8 check 2>&1 | tail -3", '''Totals: 43 passed, 0 failed, 0 skipped, 0 blacklisted, 11ms
********* Finished testing of TestValidation *********
make[1]: Leaving directory '/home/yann/dev/facturix/build-qt5/tests' ''', desc="Tests Qt 5.15", secs=60)
    s.say("Les 12 autres `QRegExp` de `core/` suivent le même motif ; je cherche ceux qui utilisaient `exactMatch` pour ancrer systématiquement ceux-là :")
    s.grep("exactMatch|indexIn", content='''core/import/releve_csv.cpp:22:    if (!rxDate.exactMatch(champs[0]))
core/import/releve_csv.cpp:40:    int pos = rxMontant.indexIn(ligne);
core/export/fec.cpp:17:    if (rxCompte.exactMatch(compte))''', path="core")
    s.files[s.abs("core/import/releve_csv.cpp")] = '''static const QRegExp rxDate("\\\\d{2}/\\\\d{2}/\\\\d{4}");
static const QRegExp rxMontant("-?\\\\d+,\\\\d{2}");
'''
    s.edit("core/import/releve_csv.cpp", '''static const QRegExp rxDate("\\\\d{2}/\\\\d{2}/\\\\d{4}");
static const QRegExp rxMontant("-?\\\\d+,\\\\d{2}");''', '''static const QRegularExpression rxDate(QRegularExpression::anchoredPattern("\\\\d{2}/\\\\d{2}/\\\\d{4}"));
static const QRegularExpression rxMontant("-?\\\\d+,\\\\d{2}");''')
    s.say(
        "Pour `QTextCodec` dans `encodage.cpp`, c'est plus délicat : `QStringConverter` n'existe "
        "qu'en Qt 6 et ne connaît que les encodages Unicode + Latin-1, alors que les relevés de la "
        "Banque Populaire arrivent en Windows-1252. J'ai regardé si `QStringDecoder` accepte "
        "\"Windows-1252\" par nom : seulement si Qt est compilé avec ICU, ce qui n'est pas le cas de "
        "nos builds Windows. Je ne le fais donc pas aujourd'hui — il faut choisir entre embarquer ICU "
        "et écrire une table de conversion 1252 (128 entrées) nous-mêmes."
    )
    s.bash("make -C build-qt5 -j8 check 2>&1 | tail -2 && make -C build-qt6 -j8 check 2>&1 | tail -2", '''Totals: 43 passed, 0 failed, 0 skipped, 0 blacklisted, 11ms
make[1]: Leaving directory '/home/yann/dev/facturix/build-qt5/tests'
core/import/encodage.cpp:3:10: fatal error: QTextCodec: No such file or directory
make[1]: *** [Makefile:1021: encodage.o] Error 2''', desc="Tests dans les deux builds", secs=140)
    s.say(
        "Comme prévu, le build Qt 6 s'arrête sur `encodage.cpp` (QTextCodec) — c'est la partie que "
        "je laisse de côté. Le build 5.15 est vert."
    )
    s.turn_end()
    s.user(
        "ok pour l'ICU vs table, je préfère la table à nous, ICU c'est 30 Mo de plus dans l'installeur. "
        "mais pas aujourd'hui. résume ce qui est fait et ce qui ne l'est pas, je reprends lundi",
        wait=140,
    )
    s.say(
        "**Fait (étape 1, partiel)**\n"
        "- `core/validation.cpp` et `core/import/releve_csv.cpp` : QRegExp → QRegularExpression, "
        "avec `anchoredPattern` partout où il y avait `exactMatch` (sinon correspondance partielle : "
        "\"75001x\" était accepté — le test l'a attrapé).\n"
        "- `make -C build-qt5 check` : 43/43.\n\n"
        "**Pas fait, et pourquoi**\n"
        "- `core/import/encodage.cpp` (QTextCodec) : les relevés sont en Windows-1252 et "
        "`QStringDecoder` ne le gère pas sans ICU. Décision : notre propre table 1252 (ICU = 30 Mo "
        "de plus dans l'installeur). À faire lundi ; tant que ce n'est pas fait, le build Qt 6 ne "
        "compile pas.\n"
        "- `core/export/fec.cpp` : encore 4 `QRegExp`, pas touchés.\n"
        "- Étapes 2 à 5 du plan : pas commencées. L'étape 4 (QML) reste bloquée tant qu'on ne sait "
        "pas si Ferrand Transports est toujours sous Windows 7 — question pour Claire.\n"
        "- Rien de commité."
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Qt 5.15 → Qt 6.5 migration of a qmake C++ desktop app (QtTest, make check), French",
        "planned over several turns in plan mode (questions, answers with their reasons), ExitPlanMode approved",
        "rules with reasons: qmake stays (CMake another project), no Core5Compat, core/ compiles with both Qt versions until 4.2",
        "a behaviour change caught by tests behind `| tail` (exactMatch vs partial match), anchoredPattern",
        "a route investigated and not taken told only in text (QStringDecoder without ICU); the user decides (own 1252 table, ICU = 30 MB)",
        "a final summary listing what was NOT done and why; open question for a colleague (Windows 7 at a customer)",
    ],
    "language": "fr",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference", "decision"],
         "match": [["qmake"], ["CMake"], ["autre chantier", "Hugo"]],
         "note": "qmake reste pour la migration Qt 6 ; CMake est un autre chantier (Hugo, l'an prochain)."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["Core5Compat"], ["jamais", "enlèvera"]],
         "note": "Pas de Core5Compat : sinon on ne l'enlèvera jamais."},
        {"id": "c3", "type": "constraint",
         "match": [["deux versions", "les deux", "5.15 ET"], ["4.2"]],
         "note": "core/ doit compiler en Qt 5.15 et Qt 6.5 tant que la 4.2 n'est pas sortie (correctifs encore en 5.15)."},
        {"id": "d1", "type": "decision",
         "match": [["6.5"], ["LTS", "contrat"]],
         "note": "Cible Qt 6.5, la LTS ; la 6.7 n'est plus maintenue par le contrat."},
        {"id": "b1", "type": "bug_note",
         "match": [["exactMatch"], ["anchoredPattern"], ["partielle", "75001x"]],
         "note": "QRegExp::exactMatch → QRegularExpression::match devient une correspondance partielle (\"75001x\" accepté) : ancrer avec anchoredPattern."},
        {"id": "d2", "type": "decision",
         "match": [["1252"], ["table"], ["ICU", "30 Mo"]],
         "note": "Pour remplacer QTextCodec (relevés en Windows-1252), une table de conversion maison plutôt qu'ICU (30 Mo de plus dans l'installeur)."},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "project_fact"], "required": False,
         "match": [["QStringDecoder"], ["ICU"]],
         "note": "QStringDecoder ne connaît Windows-1252 qu'avec ICU, absent des builds Windows."},
        {"id": "t1", "type": "todo",
         "match": [["encodage.cpp", "QTextCodec"], ["lundi"]],
         "note": "Lundi : encodage.cpp (QTextCodec → table 1252 maison) ; d'ici là le build Qt 6 ne compile pas. fec.cpp a encore 4 QRegExp."},
        {"id": "q1", "type": "open_question",
         "match": [["Windows 7"], ["Ferrand", "Claire"]],
         "note": "Ferrand Transports est-il toujours sous Windows 7 (Qt 6 ne le supporte plus) ? Demander à Claire ; bloque l'étape QML."},
        {"id": "v1", "type": "verified_command", "command": "make -C build-qt5 -j8 check"},
    ],
    "secrets": [],
    "forbidden": [["User has approved your plan"], ["Approved Plan"]],
}
