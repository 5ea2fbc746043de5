# ruff: noqa: E501  (verbatim command output and file contents)
"""R Shiny dashboard (package, testthat, data.table) re-reading a 600 MB CSV on every input; bindCache tried and dropped; leading zeros of INSEE codes lost by fread; a new package refused; R CMD check in the background (French)."""

from make_sessions import Session

MOD_V1 = '''#' Module commune : courbe des nitrates pour une commune
mod_commune_ui <- function(id) {
  ns <- NS(id)
  tagList(
    selectInput(ns("commune"), "Commune", choices = NULL),
    plotOutput(ns("courbe"))
  )
}

mod_commune_server <- function(id, chemin_csv) {
  moduleServer(id, function(input, output, session) {
    mesures <- reactive({
      req(input$commune)
      tout <- read.csv(chemin_csv, sep = ";", encoding = "UTF-8")
      tout[tout$code_commune == input$commune, ]
    })
    output$courbe <- renderPlot({
      m <- mesures()
      plot(as.Date(m$date_prelevement), m$nitrates_mg_l, type = "l",
           xlab = "", ylab = "Nitrates (mg/L)")
      abline(h = 50, col = "red", lty = 2)
    })
  })
}
'''

DESCRIPTION = '''Package: qualeau
Title: Tableau de bord qualite de l'eau
Version: 0.6.2
Authors@R: person("Camille", "Roux", role = c("aut", "cre"))
License: file LICENSE
Encoding: UTF-8
Imports:
    shiny (>= 1.7.4),
    data.table (>= 1.14.8)
Suggests:
    testthat (>= 3.0.0)
Config/testthat/edition: 3
RoxygenNote: 7.2.3
'''

TEST = '''test_that("le module filtre les mesures de la commune choisie", {
  chemin <- testthat::test_path("fixtures", "mesures_extrait.csv")
  testServer(mod_commune_server, args = list(chemin_csv = chemin), {
    session$setInputs(commune = "01004")
    out <- mesures()
    expect_equal(nrow(out), 12)
    expect_true(all(out$code_commune == "01004"))
  })
})
'''


def build() -> Session:
    s = Session("shiny-nitrates-fread-fr", cwd="/home/camille/dev/qualeau", branch="perf/chargement-csv",
                start="2026-09-15T12:22:40.118Z", version="2.1.77", slug="nitrate-reactive-heron")
    s.user(
        "Bonjour, l'appli qualeau met 30-40 s à chaque fois qu'on change de commune ds la liste, les collègues "
        "commencent à râler. Le CSV fait 600 Mo (toutes les mesures depuis 2005), il est remplacé chaque nuit par un cron vers 2h. "
        "On reste en base R + data.table dans le paquet, pas de tidyverse svp",
        wait=7,
    )
    s.call(s.read_call("R/mod_commune.R", MOD_V1), s.read_call("DESCRIPTION", DESCRIPTION))
    s.grep("chemin_csv|read.csv|fread", content='''R/app_server.R:3:  mod_commune_server("commune", chemin_csv = golem_opts$chemin_csv)
R/mod_commune.R:15:      tout <- read.csv(chemin_csv, sep = ";", encoding = "UTF-8")
R/mod_stations.R:9:  stations <- data.table::fread(chemin_stations)''', path="R")
    s.say(
        "Le problème est clair : `read.csv` des 600 Mo est **dans** le `reactive()`, donc le fichier complet est relu "
        "à chaque changement de commune, pour chaque utilisateur. Il faut lire une fois et ne filtrer qu'ensuite.\n\n"
        "Le plus rapide à essayer : `bindCache(input$commune)` sur le reactive, pour ne pas relire une commune déjà vue."
    )
    s.edit("R/mod_commune.R", '''      tout[tout$code_commune == input$commune, ]
    })''', '''      tout[tout$code_commune == input$commune, ]
    }) |> bindCache(input$commune)''')
    s.bash("Rscript -e 'devtools::load_all(quiet = TRUE); source(\"dev/bench_communes.R\")'", '''commune 01004  premier acces : 37.9 s
commune 01004  deuxieme acces : 0.01 s
commune 38185  premier acces : 38.4 s
commune 69123  premier acces : 37.2 s
memoire R apres 3 communes : 2.31 Go''', desc="Mesure avec bindCache", secs=120)
    s.say(
        "Comme attendu, `bindCache` n'aide que pour une commune **déjà consultée** : chaque première consultation "
        "reste à ~38 s, et il y a ~2 300 communes dans le fichier. En plus chaque lecture garde 600 Mo de `data.frame` "
        "le temps du filtre (2,3 Go après trois communes). Ce n'est pas la bonne piste, je l'enlève.\n\n"
        "Ce qu'il faut : lire le fichier **une fois** avec `data.table::fread` (bien plus rapide que `read.csv`), "
        "indexer sur `code_commune`, et filtrer la table en mémoire. Pour le cron de 2h, le fichier change pendant que "
        "le process R tourne (Shiny Server garde les process des jours) : `reactiveFileReader` relit le fichier seulement "
        "quand sa date de modification change. Pas de nouveau paquet, c'est dans shiny."
    )
    s.edit("R/mod_commune.R", '''    }) |> bindCache(input$commune)''', '''    })''')
    s.edit("R/mod_commune.R", '''    mesures <- reactive({
      req(input$commune)
      tout <- read.csv(chemin_csv, sep = ";", encoding = "UTF-8")
      tout[tout$code_commune == input$commune, ]
    })''', '''    # Lu une seule fois, puis relu seulement si le cron de 2h a remplacé le fichier
    # (vérification de la date de modification toutes les 10 min).
    toutes <- reactiveFileReader(600000, session, chemin_csv, function(f) {
      dt <- data.table::fread(f, sep = ";", encoding = "UTF-8")
      data.table::setkey(dt, code_commune)
      dt
    })
    mesures <- reactive({
      req(input$commune)
      toutes()[list(input$commune)]
    })''')
    s.say("Il n'y avait pas de test pour ce module ; j'en ajoute un sur un extrait de 48 lignes avec `testServer` :")
    s.write("tests/testthat/test-mod_commune.R", TEST)
    s.bash("Rscript -e 'devtools::test()'", '''ℹ Testing qualeau
✔ | F W  S  OK | Context
✔ |          4 | stations
✖ | 1        1 | mod_commune
────────────────────────────────────────────────────────────────────────────────
Failure (test-mod_commune.R:6:5): le module filtre les mesures de la commune choisie
nrow(out) (`actual`) not equal to 12 (`expected`).

  `actual`:  0
  `expected`: 12
Backtrace:
    ▆
 1. ├─shiny::testServer(...) at test-mod_commune.R:3:3
 2. │ └─withr::with_reactive_domain(...)
 3. └─testthat::expect_equal(nrow(out), 12) at test-mod_commune.R:6:5
────────────────────────────────────────────────────────────────────────────────
✔ |          3 | utils

══ Results ═════════════════════════════════════════════════════════════════════
[ FAIL 1 | WARN 0 | SKIP 0 | PASS 8 ]''', code=1, desc="Tests testthat", secs=25)
    s.bash("head -3 tests/testthat/fixtures/mesures_extrait.csv && Rscript -e 'str(data.table::fread(\"tests/testthat/fixtures/mesures_extrait.csv\", sep = \";\")$code_commune)'", '''code_commune;date_prelevement;nitrates_mg_l
01004;2024-01-09;31.2
01004;2024-02-13;29.8
 int [1:48] 1004 1004 1004 1004 1004 1004 1004 1004 1004 1004 ...''', desc="Type de code_commune après fread")
    s.say(
        "Voilà : `fread` devine le type de la colonne et lit `code_commune` comme un **entier** — `01004` devient `1004`, "
        "donc la recherche de `\"01004\"` ne trouve rien. `read.csv` fait exactement la même chose, donc ce bug existait "
        "déjà en prod : pour toutes les communes des départements 01 à 09, le graphique était vide. "
        "Il faut forcer la colonne en texte (c'est un code INSEE, pas un nombre ; il y a aussi 2A/2B pour la Corse)."
    )
    s.edit("R/mod_commune.R", '''      dt <- data.table::fread(f, sep = ";", encoding = "UTF-8")''', '''      # code_commune est un code INSEE : en texte, sinon "01004" devient 1004
      dt <- data.table::fread(f, sep = ";", encoding = "UTF-8",
                              colClasses = list(character = "code_commune"))''')
    s.bash("Rscript -e 'devtools::test()'", '''ℹ Testing qualeau
✔ | F W  S  OK | Context
✔ |          4 | stations
✔ |          2 | mod_commune
✔ |          3 | utils

══ Results ═════════════════════════════════════════════════════════════════════
[ FAIL 0 | WARN 0 | SKIP 0 | PASS 9 ]''', desc="Tests testthat", secs=22)
    s.bash("Rscript -e 'devtools::load_all(quiet = TRUE); source(\"dev/bench_communes.R\")'", '''chargement initial (fread) : 6.8 s
commune 01004  premier acces : 0.02 s
commune 38185  premier acces : 0.01 s
commune 69123  premier acces : 0.01 s
memoire R apres 3 communes : 0.94 Go''', desc="Mesure après fread + setkey", secs=30)
    s.say(
        "6,8 s une seule fois au démarrage, puis quelques millisecondes par commune, et moins d'1 Go en mémoire. "
        "Pour aller encore plus vite au démarrage on pourrait passer le fichier en Parquet avec arrow :"
    )
    s.bash_rejected("Rscript -e 'renv::install(\"arrow\")'", desc="Installer arrow",
                    reason="non, pas de nouveau paquet. le serveur shiny de la DSI n'a pas accès à internet, chaque paquet passe par une demande de validation et ça prend deux mois. 7 s au démarrage c'est très bien")
    s.say("Compris, pas de nouveau paquet ; on reste avec `fread`. Je lance le `R CMD check` complet en arrière-plan :")
    b = s.bash_bg("Rscript -e 'devtools::check(document = FALSE, error_on = \"warning\")'", "R CMD check du paquet")
    s.read("NEWS.md", '''# qualeau 0.6.2

* Carte des stations : infobulle avec la date du dernier prélèvement.
''')
    s.edit("NEWS.md", '''# qualeau 0.6.2
''', '''# qualeau 0.6.3

* Le CSV des mesures est lu une seule fois (`data.table::fread`) et relu seulement quand le cron l'a remplacé
  (`reactiveFileReader`) ; changer de commune ne prend plus 30-40 s.
* `code_commune` est lu en texte : les communes des départements 01 à 09 n'étaient plus trouvées.

# qualeau 0.6.2
''')
    s.edit("DESCRIPTION", "Version: 0.6.2", "Version: 0.6.3")
    s.task_notification(b, "R CMD check du paquet", wait=140)
    s.read(f"/tmp/claude-1000/{s.cwd.replace('/', '-')}/tasks/{b}.output", '''══ Documenting ═════════════════════════════════════════════════════════════════
══ Building ════════════════════════════════════════════════════════════════════
✔  checking for file ‘/home/camille/dev/qualeau/DESCRIPTION’
─  building ‘qualeau_0.6.3.tar.gz’
══ Checking ════════════════════════════════════════════════════════════════════
── R CMD check results ─────────────────────────────────── qualeau 0.6.3 ────
Duration: 1m 52.4s

0 errors ✔ | 0 warnings ✔ | 0 notes ✔''')
    s.say(
        "`R CMD check` : 0 erreur, 0 avertissement, 0 note.\n\n"
        "Résumé :\n"
        "- **Cause de la lenteur :** `read.csv` des 600 Mo dans le `reactive()`, donc à chaque changement de commune.\n"
        "- **Correctif :** `data.table::fread` une seule fois + `setkey(code_commune)`, dans un `reactiveFileReader` "
        "(contrôle toutes les 10 min) pour reprendre le fichier du cron de 2h sans redémarrer. ~7 s au démarrage, "
        "quelques ms par commune, < 1 Go.\n"
        "- **Essayé et abandonné :** `bindCache` — chaque première consultation restait à ~38 s et la mémoire montait.\n"
        "- **Bug trouvé en passant :** `fread` lisait `code_commune` en entier (`01004` → `1004`) ; colonne forcée en texte.\n"
        "- Version 0.6.3, NEWS à jour, tests et `R CMD check` verts.\n\n"
        "Pas fait : déploiement sur le serveur Shiny. Les codes corses (2A/2B) ne sont pas dans l'extrait de test."
    )
    s.turn_end()
    s.user(
        "top merci. je déploie en recette jeudi, c'est le seul créneau de la DSI. pour la Corse je sais même pas si le fichier "
        "en contient, je demanderai à Hélène qui fait l'export",
        wait=80,
    )
    s.say("Très bien, rien d'autre de mon côté.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "R Shiny dashboard packaged as an R package (testthat, testServer, data.table, renv), French",
        "a rule in the first prompt (base R + data.table, no tidyverse in the package)",
        "read.csv of a 600 MB file inside a reactive; bindCache tried, measured (first access still 38 s) and dropped",
        "fread once + setkey inside reactiveFileReader for the nightly cron file, with its why",
        "a testthat failure with the real error in the middle (0 rows): fread reading INSEE codes as integers (01004 -> 1004)",
        "installing arrow rejected with a reason (offline DSI server, two months per package)",
        "R CMD check in the background with <task-notification>",
        "todo the user takes (recette on Thursday) and a question for a colleague (Corsica codes, Hélène)",
    ],
    "language": "fr",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["tidyverse"], ["data.table", "base R"]],
         "note": "Dans le paquet qualeau : base R + data.table, pas de tidyverse."},
        {"id": "b1", "type": "bug_note",
         "match": [["read.csv"], ["reactive"], ["600 Mo", "chaque changement", "commune"]],
         "note": "L'appli mettait 30-40 s par commune : read.csv du CSV de 600 Mo était dans le reactive(), relu à chaque changement."},
        {"id": "f1", "type": "failed_attempt",
         "match": [["bindCache"], ["38 s", "première consultation", "premier acces"]],
         "note": "bindCache n'aide que pour une commune déjà vue : chaque première consultation restait à ~38 s (2 300 communes) et la mémoire montait ; retiré."},
        {"id": "d1", "type": "decision",
         "match": [["fread"], ["reactiveFileReader"], ["cron", "2h"]],
         "note": "Le CSV est lu une fois avec fread + setkey(code_commune) dans un reactiveFileReader (10 min), pour reprendre le fichier remplacé par le cron de 2h sans redémarrer."},
        {"id": "b2", "type": "bug_note",
         "match": [["code_commune", "INSEE"], ["01004", "entier"], ["character", "texte"]],
         "note": "fread lisait code_commune en entier (01004 → 1004), les communes des départements 01 à 09 n'étaient plus trouvées ; colClasses character."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["paquet"], ["DSI", "validation", "deux mois"]],
         "note": "Pas de nouveau paquet R (arrow refusé) : le serveur Shiny de la DSI est hors ligne, chaque paquet passe par une validation de deux mois."},
        {"id": "t1", "type": "todo",
         "match": [["recette"], ["jeudi"]],
         "note": "Camille déploie en recette jeudi (seul créneau de la DSI)."},
        {"id": "q1", "type": "open_question",
         "match": [["Corse", "2A"], ["Hélène"]],
         "note": "Le fichier contient-il des communes corses (2A/2B) ? Camille demandera à Hélène qui fait l'export."},
        {"id": "v1", "type": "verified_command", "command": "Rscript -e 'devtools::test()'"},
        {"id": "v2", "type": "verified_command", "command": "Rscript -e 'devtools::check(document = FALSE, error_on = \"warning\")'"},
        {"id": "v3", "type": "verified_command", "required": False,
         "command": "Rscript -e 'devtools::load_all(quiet = TRUE); source(\"dev/bench_communes.R\")'"},
    ],
    "secrets": [],
    "forbidden": [["task-notification"], ["doesn't want to proceed"]],
}
