# ruff: noqa: E501  (verbatim command output and file contents)
"""Jenkins shared library (Groovy, JenkinsPipelineUnit): NotSerializableException LazyMap after a "deprecated" cleanup; @NonCPS tried, JsonSlurperClassic chosen via AskUserQuestion; smoke job in the background (German)."""

from make_sessions import Session

DEPLOY_V1 = '''import groovy.json.JsonSlurper

/**
 * deployService(service: 'bestand-api', tag: env.GIT_COMMIT)
 * Liest resources/deploy/<service>.json und macht helm upgrade + Smoke-Test.
 */
def call(Map args) {
    def cfg = new JsonSlurper().parseText(libraryResource("deploy/${args.service}.json"))
    stage("Deploy ${args.service}") {
        retry(3) {
            sh "helm upgrade --install ${args.service} charts/${cfg.chart} -n ${cfg.namespace} --set image.tag=${args.tag} --wait"
        }
        if (cfg.smokeTest) {
            sh "curl -fsS --retry 5 ${cfg.smokeTest}"
        }
    }
}
'''

TEST_V1 = '''import com.lesfurets.jenkins.unit.BasePipelineTest
import org.junit.Before
import org.junit.Test

class DeployServiceTest extends BasePipelineTest {

    @Before
    void setUp() {
        super.setUp()
        helper.registerAllowedMethod("libraryResource", [String]) { path ->
            new File("resources/${path}").text
        }
    }

    @Test
    void "ruft helm mit Chart und Namespace aus der Konfiguration"() {
        def script = loadScript("vars/deployService.groovy")
        script.call(service: "bestand-api", tag: "abc123")
        assert helper.callStack.any { it.methodName == "sh" && it.argsToString().contains("charts/bestand -n lager") }
    }
}
'''

BUILD_GRADLE = '''plugins {
    id 'groovy'
}

repositories {
    mavenCentral()
    maven { url 'https://repo.jenkins-ci.org/public/' }
}

sourceSets {
    main { groovy { srcDirs = ['src', 'vars'] } }
    test { groovy { srcDirs = ['test'] } }
}

dependencies {
    implementation 'org.codehaus.groovy:groovy-all:2.4.21'
    testImplementation 'com.lesfurets:jenkins-pipeline-unit:1.19'
    testImplementation 'junit:junit:4.13.2'
}
'''

FAIL_CPS = '''> Task :compileGroovy
> Task :compileTestGroovy

> Task :test

DeployServiceTest > ruft helm mit Chart und Namespace aus der Konfiguration PASSED

DeployServiceCpsTest > ueberlebt Checkpoint nach dem Parsen FAILED
    java.io.NotSerializableException: groovy.json.internal.LazyMap
        at org.jboss.marshalling.river.RiverMarshaller.doWriteObject(RiverMarshaller.java:926)
        at com.lesfurets.jenkins.unit.cps.BasePipelineTestCPS.roundtripSerialization(BasePipelineTestCPS.groovy:88)
        at com.lesfurets.jenkins.unit.cps.BasePipelineTestCPS.runScript(BasePipelineTestCPS.groovy:64)
        at DeployServiceCpsTest.ueberlebt Checkpoint nach dem Parsen(DeployServiceCpsTest.groovy:24)

NotifyTeamsTest > sendet Karte bei Fehler PASSED
VersionTest > liest Version aus pom PASSED

4 tests completed, 1 failed

> Task :test FAILED

FAILURE: Build failed with an exception.

* What went wrong:
Execution failed for task ':test'.
> There were failing tests. See the report at: file:///home/jana/src/ci-library/build/reports/tests/test/index.html

BUILD FAILED in 14s
4 actionable tasks: 4 executed'''


def build() -> Session:
    s = Session("jenkins-sharedlib-lazymap-de", cwd="/home/jana/src/ci-library", branch="fix/deploy-lazymap",
                start="2026-06-23T07:48:12.907Z", version="2.1.70", slug="serializable-config-lynx")
    s.user(
        "seit gestern brechen alle Deploys mit deployService ab, immer direkt nach dem helm upgrade:\n\n"
        "```\nan exception which occurred:\n\tin field com.cloudbees.groovy.cps.impl.BlockScopeEnv.locals\n"
        "\tin object com.cloudbees.groovy.cps.impl.BlockScopeEnv@5b1e6f3c\n"
        "Caused: java.io.NotSerializableException: groovy.json.internal.LazyMap\n```\n\n"
        "kannst du mal schaun? tests laufen mit ./gradlew test",
        wait=5,
    )
    s.call(s.read_call("vars/deployService.groovy", DEPLOY_V1), s.read_call("test/DeployServiceTest.groovy", TEST_V1))
    s.bash("git log --oneline -5 -- vars/deployService.groovy", '''3e1f0a2 deployService: JsonSlurper statt deprecated JsonSlurperClassic
c81d7b4 deployService: Smoke-Test optional
5a09e11 deployService: retry um helm
0b7c3f8 deployService: erste Version''', desc="Letzte Änderungen an deployService")
    s.bash("git show 3e1f0a2 --stat --format='%an %ad%n%s' && git show 3e1f0a2 -- vars/deployService.groovy | tail -8", '''Kai Brenner Mon Jun 22 16:02:41 2026 +0200
deployService: JsonSlurper statt deprecated JsonSlurperClassic
 vars/deployService.groovy | 4 ++--
 1 file changed, 2 insertions(+), 2 deletions(-)
-import groovy.json.JsonSlurperClassic
+import groovy.json.JsonSlurper
@@ -7,7 +7,7 @@
 def call(Map args) {
-    def cfg = new JsonSlurperClassic().parseText(libraryResource("deploy/${args.service}.json"))
+    def cfg = new JsonSlurper().parseText(libraryResource("deploy/${args.service}.json"))
     stage("Deploy ${args.service}") {''', desc="Was hat sich gestern geändert")
    s.say(
        "Das ist es. Kai hat gestern `JsonSlurperClassic` durch `JsonSlurper` ersetzt, weil die IDE das als deprecated "
        "markiert. `JsonSlurper` liefert aber eine `groovy.json.internal.LazyMap`, und die ist **nicht serialisierbar**. "
        "Jenkins speichert den Zustand der Pipeline (CPS) bei jedem Step wie `sh` — `cfg` ist eine lokale Variable, die "
        "über das `sh` hinweg lebt, also muss sie serialisiert werden, und genau da knallt es. `JsonSlurperClassic` gibt "
        "normale `HashMap`s zurück, deshalb lief es vorher.\n\n"
        "Der bestehende Test fängt das nicht, weil `BasePipelineTest` nicht serialisiert. JenkinsPipelineUnit hat dafür "
        "`BasePipelineTestCPS`. Ich schreibe zuerst einen Test, der den Fehler reproduziert."
    )
    s.write("test/DeployServiceCpsTest.groovy", '''import com.lesfurets.jenkins.unit.cps.BasePipelineTestCPS
import org.junit.Before
import org.junit.Test

/** Läuft mit CPS-Serialisierung wie auf dem echten Jenkins: fängt nicht serialisierbare Locals. */
class DeployServiceCpsTest extends BasePipelineTestCPS {

    @Before
    void setUp() {
        super.setUp()
        helper.registerAllowedMethod("libraryResource", [String]) { path ->
            new File("resources/${path}").text
        }
    }

    @Test
    void "ueberlebt Checkpoint nach dem Parsen"() {
        def script = loadScript("vars/deployService.groovy")
        script.call(service: "bestand-api", tag: "abc123")
        printCallStack()
        assertJobStatusSuccess()
    }
}
''')
    s.bash("./gradlew test", FAIL_CPS, code=1, desc="Tests", secs=18)
    s.say(
        "Reproduziert: `NotSerializableException: groovy.json.internal.LazyMap`, wie auf dem Jenkins.\n\n"
        "Erster Versuch ohne die Klasse zu wechseln: das Parsen in eine `@NonCPS`-Methode auslagern. Innerhalb von "
        "`@NonCPS` wird nicht serialisiert."
    )
    s.edit("vars/deployService.groovy", '''def call(Map args) {
    def cfg = new JsonSlurper().parseText(libraryResource("deploy/${args.service}.json"))''', '''@NonCPS
private Map parseConfig(String text) {
    new JsonSlurper().parseText(text)
}

def call(Map args) {
    def cfg = parseConfig(libraryResource("deploy/${args.service}.json"))''')
    s.bash("./gradlew test --tests DeployServiceCpsTest 2>&1 | grep -A3 FAILED", '''DeployServiceCpsTest > ueberlebt Checkpoint nach dem Parsen FAILED
    java.io.NotSerializableException: groovy.json.internal.LazyMap
        at org.jboss.marshalling.river.RiverMarshaller.doWriteObject(RiverMarshaller.java:926)
        at com.lesfurets.jenkins.unit.cps.BasePipelineTestCPS.roundtripSerialization(BasePipelineTestCPS.groovy:88)''', desc="Nur der CPS-Test", secs=15)
    s.say(
        "Hilft nicht, und das ist auch logisch: `@NonCPS` schützt nur die Methode selbst, der Rückgabewert ist immer "
        "noch eine `LazyMap` und landet wieder in `cfg`. Nehme ich zurück.\n\n"
        "Es gibt zwei saubere Wege, bevor ich einen aussuche:"
    )
    s.edit("vars/deployService.groovy", '''@NonCPS
private Map parseConfig(String text) {
    new JsonSlurper().parseText(text)
}

def call(Map args) {
    def cfg = parseConfig(libraryResource("deploy/${args.service}.json"))''', '''def call(Map args) {
    def cfg = new JsonSlurper().parseText(libraryResource("deploy/${args.service}.json"))''')
    q = "Wie soll deployService die JSON-Konfiguration lesen?"
    s.ask(
        [{"question": q, "header": "JSON",
          "options": [("readJSON", "Step aus pipeline-utility-steps, liefert serialisierbare Maps; braucht das Plugin auf dem Controller"),
                      ("JsonSlurperClassic", "Wie vor Kais Änderung, HashMaps; IDE zeigt deprecated an")]}],
        {q: "JsonSlurperClassic. pipeline-utility-steps haben wir nicht, und Plugins gehen nur per Ticket an die Plattform-Gruppe, das dauert Wochen. schreib dazu warum, sonst ändert das der nächste wieder"},
    )
    s.bash("grep -c 'pipeline-utility-steps' docs/installed-plugins.txt; grep -rln 'JsonSlurper\\b\\|new JsonSlurper()' vars/ src/", '''0
vars/deployService.groovy
vars/notifyTeams.groovy''', desc="Plugin-Liste und weitere JsonSlurper-Stellen")
    s.edit("vars/deployService.groovy", '''import groovy.json.JsonSlurper
''', '''// JsonSlurperClassic, NICHT JsonSlurper: JsonSlurper liefert eine LazyMap, die nicht serialisierbar ist,
// und `cfg` lebt über sh-Steps hinweg (CPS-Checkpoint) -> NotSerializableException. Die IDE-Warnung
// "deprecated" ignorieren. readJSON wäre die Alternative, pipeline-utility-steps ist aber nicht installiert.
import groovy.json.JsonSlurperClassic
''')
    s.edit("vars/deployService.groovy", '''    def cfg = new JsonSlurper().parseText(''', '''    def cfg = new JsonSlurperClassic().parseText(''')
    s.bash("./gradlew test", '''> Task :compileGroovy
> Task :compileTestGroovy

> Task :test

DeployServiceTest > ruft helm mit Chart und Namespace aus der Konfiguration PASSED
DeployServiceCpsTest > ueberlebt Checkpoint nach dem Parsen PASSED
NotifyTeamsTest > sendet Karte bei Fehler PASSED
VersionTest > liest Version aus pom PASSED

BUILD SUCCESSFUL in 13s
4 actionable tasks: 3 executed, 1 up-to-date''', desc="Tests", secs=17)
    s.say(
        "Grün, inklusive CPS-Test. Auf dem Test-Jenkins lasse ich noch den Smoke-Job gegen diesen Branch laufen "
        "(dauert ein paar Minuten, läuft im Hintergrund):"
    )
    s.bash("git push -q -u origin fix/deploy-lazymap", "", desc="Branch pushen")
    b = s.bash_bg("java -jar ~/bin/jenkins-cli.jar -s https://ci-test.lager.intern/ -auth @$HOME/.jenkins-test-auth build lib-smoketest -p LIB_BRANCH=fix/deploy-lazymap -s -v",
                  "Smoke-Job auf ci-test mit dem Branch")
    s.read("vars/notifyTeams.groovy", '''import groovy.json.JsonSlurper

def call(String webhook, String text) {
    def card = new JsonSlurper().parseText(libraryResource("teams/card.json"))
    card.text = text
    httpRequest url: webhook, httpMode: "POST", contentType: "APPLICATION_JSON",
        requestBody: groovy.json.JsonOutput.toJson(card)
}
''')
    s.say(
        "`notifyTeams` hat dasselbe Muster. Dort knallt es im Moment nur deshalb nicht, weil `card` nach dem "
        "`httpRequest` nicht mehr gebraucht wird und `httpRequest` der letzte Step ist — sobald jemand danach noch einen "
        "Step einfügt, passiert das Gleiche. Ich fasse es in diesem Branch nicht an, sage es aber unten."
    )
    s.task_notification(b, "Smoke-Job auf ci-test mit dem Branch", wait=170)
    s.read(f"/tmp/claude-1000/{s.cwd.replace('/', '-')}/tasks/{b}.output", '''Started lib-smoketest #412
Loading library ci-library@fix/deploy-lazymap
[Pipeline] stage (Deploy bestand-api)
[Pipeline] retry
[Pipeline] sh
+ helm upgrade --install bestand-api charts/bestand -n lager-smoke --set image.tag=smoke --wait
Release "bestand-api" has been upgraded. Happy Helming!
[Pipeline] sh
+ curl -fsS --retry 5 https://bestand-api.lager-smoke.intern/health
{"status":"UP"}
[Pipeline] End of Pipeline
Finished: SUCCESS
Completed lib-smoketest #412 : SUCCESS''')
    s.say("Smoke-Job #412 auf ci-test ist grün, durch `helm upgrade` und den Smoke-Test hindurch. Dann auf master, damit die Deploys wieder laufen:")
    s.bash_rejected("git checkout master && git merge --ff-only fix/deploy-lazymap && git push origin master", desc="Nach master mergen und pushen",
                    reason="nein, nicht direkt auf master. da hängen 140 Pipelines mit @Library('ci-library') ohne Version dran. MR aufmachen, Review von jemandem aus dem Team, dann Tag. ich mach das")
    s.say("Verstanden, ich pushe nichts auf master.")
    s.say(
        "Zusammenfassung:\n\n"
        "- **Ursache:** Kais Commit `3e1f0a2` hat `JsonSlurperClassic` durch `JsonSlurper` ersetzt (IDE-Warnung "
        "\"deprecated\"). `JsonSlurper` liefert eine `LazyMap`, die nicht serialisierbar ist; `cfg` lebt über die "
        "`sh`-Steps hinweg, also scheitert der CPS-Checkpoint mit `NotSerializableException`.\n"
        "- **Fix:** zurück zu `JsonSlurperClassic`, mit Kommentar warum (und warum nicht `readJSON`: "
        "pipeline-utility-steps ist nicht installiert).\n"
        "- **Ausprobiert und verworfen:** Parsen in einer `@NonCPS`-Methode — der Rückgabewert bleibt eine `LazyMap`.\n"
        "- **Neu:** `DeployServiceCpsTest` auf `BasePipelineTestCPS`, der so etwas ab jetzt in `./gradlew test` fängt.\n"
        "- Smoke-Job `lib-smoketest` #412 auf ci-test mit dem Branch: SUCCESS.\n\n"
        "Offen: `vars/notifyTeams.groovy` benutzt auch `JsonSlurper` und ist nur zufällig nicht betroffen. "
        "Der Merge nach master läuft über dich (MR, Review, Tag)."
    )
    s.turn_end()
    s.user(
        "danke. notifyTeams mach ich morgen selbst mit, gleicher MR. Lukas' Team hat übrigens eine eigene Kopie von "
        "deployService direkt im Jenkinsfile, keine Ahnung ob die Kais Änderung auch übernommen haben — frag ich ihn nachher",
        wait=90,
    )
    s.say("Alles klar.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Jenkins shared library in Groovy (vars/, JenkinsPipelineUnit, Gradle), German, a pasted NotSerializableException",
        "cause found in git history: JsonSlurperClassic replaced by JsonSlurper because the IDE said deprecated (LazyMap not serializable across sh steps)",
        "a CPS test (BasePipelineTestCPS) failing with the real error in the middle of the Gradle output",
        "@NonCPS parse helper tried and reverted with its why (return value is still a LazyMap)",
        "AskUserQuestion answered in free text: JsonSlurperClassic, because plugins take weeks via the platform group; comment the why",
        "a smoke job on the test Jenkins in the background with <task-notification> and its output read",
        "push to master rejected with a rule (140 pipelines, MR + review + tag)",
        "todo the user takes (notifyTeams tomorrow) and a question for a colleague (Lukas' copy)",
    ],
    "language": "de",
    "empty": False,
    "items": [
        {"id": "b1", "type": "bug_note",
         "match": [["LazyMap"], ["JsonSlurper"], ["serialis", "CPS"]],
         "note": "Deploys brachen ab, weil JsonSlurper eine nicht serialisierbare LazyMap liefert und cfg über sh-Steps (CPS-Checkpoint) lebt; Kai hatte JsonSlurperClassic wegen 'deprecated' ersetzt."},
        {"id": "f1", "type": "failed_attempt",
         "match": [["NonCPS"], ["LazyMap", "Rückgabewert", "hilft nicht"]],
         "note": "Parsen in einer @NonCPS-Methode hilft nicht: der Rückgabewert ist immer noch eine LazyMap."},
        {"id": "d1", "type": "decision",
         "match": [["JsonSlurperClassic"], ["Plugin", "pipeline-utility-steps", "readJSON"], ["Ticket", "Plattform", "Wochen", "nicht installiert"]],
         "note": "JsonSlurperClassic statt readJSON: pipeline-utility-steps ist nicht installiert, Plugins gehen nur per Ticket an die Plattform-Gruppe (Wochen); mit Kommentar warum."},
        {"id": "x1", "type": "project_fact", "types": ["project_fact", "decision"],
         "match": [["BasePipelineTestCPS", "DeployServiceCpsTest"], ["serialis"]],
         "note": "Der normale BasePipelineTest serialisiert nicht; DeployServiceCpsTest auf BasePipelineTestCPS fängt nicht serialisierbare Locals."},
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["master"], ["140 Pipelines", "MR", "Review"]],
         "note": "Nicht direkt auf master der Library pushen: 140 Pipelines nutzen @Library('ci-library') ohne Version; MR, Review aus dem Team, dann Tag."},
        {"id": "t1", "type": "todo",
         "match": [["notifyTeams"], ["morgen", "JsonSlurper"]],
         "note": "vars/notifyTeams.groovy benutzt auch JsonSlurper (nur zufällig nicht betroffen); Jana macht es morgen im gleichen MR."},
        {"id": "q1", "type": "open_question",
         "match": [["Lukas"], ["Kopie", "Jenkinsfile"]],
         "note": "Hat Lukas' Team mit seiner eigenen Kopie von deployService im Jenkinsfile Kais Änderung auch übernommen? Jana fragt ihn."},
        {"id": "x2", "type": "project_fact", "required": False,
         "match": [["lib-smoketest"], ["LIB_BRANCH", "ci-test"]],
         "note": "Ein Library-Branch lässt sich auf ci-test mit dem Job lib-smoketest (Parameter LIB_BRANCH) durchspielen."},
        {"id": "v1", "type": "verified_command", "command": "./gradlew test"},
        {"id": "v2", "type": "verified_command", "required": False,
         "command": "java -jar ~/bin/jenkins-cli.jar -s https://ci-test.lager.intern/ -auth @$HOME/.jenkins-test-auth build lib-smoketest -p LIB_BRANCH=fix/deploy-lazymap -s -v"},
    ],
    "secrets": [],
    "forbidden": [["task-notification"], ["doesn't want to proceed"], ["User has answered"]],
}
