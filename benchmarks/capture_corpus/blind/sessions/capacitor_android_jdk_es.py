# ruff: noqa: E501  (verbatim command output and file contents)
"""Ionic/Capacitor 6 upgrade: Android build fails, the real error (JDK 21, class file major version 65) hidden behind `| tail`; Gradle wrapper bump tried and reverted; AskUserQuestion picks .sdkmanrc over gradle.properties; `npx cap sync` rejected (ios/ belongs to Marta) (Spanish)."""

from make_sessions import Session

GRADLE_FULL = '''Starting a Gradle Daemon (subsequent builds will be faster)

FAILURE: Build failed with an exception.

* Where:
Settings file '/home/alvaro/dev/reservas-padel/android/settings.gradle'

* What went wrong:
Could not compile settings file '/home/alvaro/dev/reservas-padel/android/settings.gradle'.
> startup failed:
  General error during conversion: Unsupported class file major version 65

  java.lang.IllegalArgumentException: Unsupported class file major version 65
  \tat groovyjarjarasm.asm.ClassReader.<init>(ClassReader.java:199)
  \tat groovyjarjarasm.asm.ClassReader.<init>(ClassReader.java:180)
  \tat org.codehaus.groovy.control.ClassNodeResolver.findByClassLoading(ClassNodeResolver.java:220)
  \tat org.codehaus.groovy.control.CompilationUnit.compile(CompilationUnit.java:663)
  \tat org.gradle.groovy.scripts.internal.DefaultScriptCompilationHandler.compileScript(DefaultScriptCompilationHandler.java:139)
  \t... 172 more

  1 error

* Try:
> Run with --stacktrace option to get the stack trace.
> Run with --info or --debug option to get more log output.
> Run with --scan to get full insights.
> Get more help at https://help.gradle.org.

BUILD FAILED in 14s'''


def build() -> Session:
    s = Session("capacitor-android-jdk-es", cwd="/home/alvaro/dev/reservas-padel", branch="chore/capacitor-6",
                start="2026-05-21T16:12:40.551Z", version="2.1.44", slug="capacitor6-android-jdk17")
    s.user(
        "he subido capacitor a la 6 siguiendo la guia (npm i @capacitor/core@6 @capacitor/android@6 ...) y ahora el build de android peta. "
        "arreglalo porfa",
        wait=6,
    )
    s.bash("cat package.json | jq '.dependencies | with_entries(select(.key|startswith(\"@capacitor\")))' && java -version 2>&1 | head -1 && cat android/gradle/wrapper/gradle-wrapper.properties | grep distributionUrl",
           '''{
  "@capacitor/android": "^6.1.0",
  "@capacitor/camera": "^6.0.1",
  "@capacitor/core": "^6.1.0",
  "@capacitor/ios": "^6.1.0",
  "@capacitor/preferences": "^6.0.1"
}
openjdk version "21.0.3" 2024-04-16
distributionUrl=https\\://services.gradle.org/distributions/gradle-8.2.1-all.zip''', desc="Versiones de Capacitor, Java y Gradle")
    s.bash("cd android && ./gradlew assembleDebug 2>&1 | tail -5", '''> Run with --info or --debug option to get more log output.
> Run with --scan to get full insights.
> Get more help at https://help.gradle.org.

BUILD FAILED in 14s''', desc="Build debug de Android", secs=25)
    s.say("La cola solo dice BUILD FAILED. Lo lanzo sin recortar para ver el error de verdad:")
    s.bash("cd android && ./gradlew assembleDebug", GRADLE_FULL, code=1, desc="Build debug completo", secs=20)
    s.say(
        "El error real está en medio: `Unsupported class file major version 65`. La versión 65 es **Java 21**: Gradle 8.2.1 "
        "(el que trae la plantilla de Capacitor 6) no sabe leer clases de JDK 21, y tu `java` por defecto es 21.0.3.\n\n"
        "Dos salidas: compilar con JDK 17 (lo que pide Capacitor 6) o subir el wrapper a una Gradle que soporte 21 (≥ 8.5). "
        "Pruebo lo segundo, que no requiere instalar nada:"
    )
    s.bash("cd android && ./gradlew wrapper --gradle-version 8.7 && ./gradlew assembleDebug 2>&1 | grep -E 'What went wrong|Inconsistent|BUILD' -A3", '''BUILD SUCCESSFUL in 9s
1 actionable task: 1 executed
* What went wrong:
Execution failed for task ':capacitor-camera:compileDebugKotlin'.
> Inconsistent JVM-target compatibility detected for tasks 'compileDebugJavaWithJavac' (17) and 'compileDebugKotlin' (21).
--
BUILD FAILED in 1m 3s''', desc="Subir wrapper a Gradle 8.7 y reconstruir", secs=80)
    s.say(
        "Avanza más (el settings ya compila), pero ahora rompe en `capacitor-camera`: Java compila para 17 y Kotlin para 21 "
        "porque toma el JDK que ejecuta Gradle. Se arreglaría fijando `jvmToolchain(17)` en los módulos… pero eso es tocar "
        "el build de un plugin dentro de `node_modules`."
    )
    s.turn_end()
    s.user(
        "buf no. deja el wrapper como estaba, el wrapper lo gestiona capacitor y el proximo cap migrate lo machaca igual. "
        "ademas appflow compila con jdk 17. usa 17",
        wait=50,
    )
    s.bash("git checkout -- android/gradle android/gradlew android/gradlew.bat && git status --short android/", "", desc="Revertir el wrapper")
    q = "¿Cómo fijamos JDK 17 para este proyecto?"
    s.ask(
        [{"question": q, "header": "JDK 17",
          "options": [("gradle.properties", "org.gradle.java.home=/ruta/al/jdk17 en android/gradle.properties"),
                      (".sdkmanrc", "java=17.0.11-tem en .sdkmanrc; `sdk env` antes de compilar"),
                      ("Script npm", "JAVA_HOME fijado en un script build:android de package.json")]}],
        {q: ".sdkmanrc. todo el equipo usa sdkman, y una ruta de mi maquina en gradle.properties les rompe el build a los demas"},
    )
    s.bash("sdk list java | grep -E '17\\.0\\.[0-9]+-tem' | head -3", '''               |     | 17.0.11      | tem     | installed  | 17.0.11-tem
               |     | 17.0.10      | tem     |            | 17.0.10-tem
               |     | 17.0.9       | tem     |            | 17.0.9-tem''', desc="JDK 17 disponibles en sdkman")
    s.write(".sdkmanrc", '''# Capacitor 6 / Gradle 8.2.1 necesita JDK 17 (con 21: "Unsupported class file major version 65"). Appflow también usa 17.
java=17.0.11-tem
''')
    s.bash("source ~/.sdkman/bin/sdkman-init.sh && sdk env && cd android && ./gradlew assembleDebug", '''
Using java version 17.0.11-tem in this shell.
Starting a Gradle Daemon, 1 incompatible Daemon could not be reused, use --status for details

> Configure project :app
WARNING: Using flatDir should be avoided because it doesn't support any meta-data formats.

> Task :capacitor-camera:compileDebugKotlin
> Task :app:compileDebugJavaWithJavac
> Task :app:mergeDebugAssets
> Task :app:packageDebug
> Task :app:assembleDebug

BUILD SUCCESSFUL in 1m 41s
187 actionable tasks: 187 executed''', desc="Build con JDK 17 vía sdkman", secs=110)
    s.say("Compila con JDK 17. Sincronizo los assets web y plugins con la plataforma nativa:")
    s.bash_rejected("npx cap sync", desc="Sincronizar web + plugins con las plataformas",
                    reason="no, cap sync a secas toca tambien ios/. ios lo lleva Marta en su mac y un sync desde linux le rompe el Podfile.lock. solo npx cap sync android")
    s.bash("npm run build && npx cap sync android", '''
> reservas-padel@2.4.0 build
> ng build

Initial chunk files   | Names         |  Raw size | Estimated transfer size
main-5TQJ2KXN.js      | main          | 812.40 kB |               178.21 kB
polyfills-FFHMD2TL.js | polyfills     |  34.52 kB |                11.28 kB
styles-3XBQ6C4A.css   | styles        |  48.10 kB |                 6.94 kB

Application bundle generation complete. [21.443 seconds]
Output location: /home/alvaro/dev/reservas-padel/www

✔ Copying web assets from www to android/app/src/main/assets/public in 88.17ms
✔ Creating capacitor.config.json in android/app/src/main/assets in 1.02ms
✔ copy android in 142.55ms
✔ Updating Android plugins in 9.88ms
[info] Found 2 Capacitor plugins for android:
       @capacitor/camera@6.0.1
       @capacitor/preferences@6.0.1
✔ update android in 61.30ms
[info] Sync finished in 0.311s''', desc="Build web y sync solo Android", secs=35)
    s.bash("npm test -- --watch=false --browsers=ChromeHeadless", '''
> reservas-padel@2.4.0 test
> ng test --watch=false --browsers=ChromeHeadless

21 05 2026 18:31:09.442:INFO [karma-server]: Karma v6.4.3 server started at http://localhost:9876/
21 05 2026 18:31:09.445:INFO [launcher]: Starting browser ChromeHeadless
21 05 2026 18:31:11.902:INFO [Chrome Headless 125.0.6422.60 (Linux x86_64)]: Connected on socket 8Hq2xZ1pW0cV with id 41872115
Chrome Headless 125.0.6422.60 (Linux x86_64): Executed 64 of 64 SUCCESS (2.118 secs / 1.944 secs)
TOTAL: 64 SUCCESS''', desc="Tests unitarios", secs=30)
    s.bash("git status --short", '''?? .sdkmanrc
 M android/app/capacitor.build.gradle
 M android/capacitor.settings.gradle''', desc="Qué ha cambiado")
    s.say(
        "Listo:\n\n"
        "- **Causa**: JDK 21 por defecto + Gradle 8.2.1 de Capacitor 6 → `Unsupported class file major version 65` (oculto en "
        "la salida; la cola solo decía BUILD FAILED).\n"
        "- **Descartado**: subir el wrapper a Gradle 8.7 (luego choca `capacitor-camera` con JVM-target 17/21, y el wrapper lo "
        "gestiona Capacitor). Revertido.\n"
        "- **Hecho**: `.sdkmanrc` con `java=17.0.11-tem`; `sdk env` antes de compilar. `assembleDebug` OK, "
        "`npx cap sync android` (sin tocar `ios/`), 64 tests OK.\n\n"
        "Pendiente: el build de iOS con Capacitor 6 no lo he probado (no hay Mac aquí)."
    )
    s.turn_end()
    s.user(
        "vale gracias. lo de ios se lo paso a Marta. mañana pongo en el README lo de sdk env, que si no Dani se vuelve loco. "
        "y no se si el plugin de redsys que usamos para pagar ya tiene version para capacitor 6, eso lo tengo que mirar antes de mergear",
        wait=65,
    )
    s.say("De acuerdo. El plugin de Redsys no aparece en la lista de `cap sync` porque va por Cordova; conviene probar un pago en el emulador antes del merge.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Ionic/Angular app upgraded to Capacitor 6, Android build on a laptop with JDK 21, Spanish",
        "the real error (`Unsupported class file major version 65`) hidden behind `| tail -5`, found in a full run",
        "Gradle wrapper bumped to 8.7, then a JVM-target clash in capacitor-camera; reverted at the user's word (Capacitor manages the wrapper, Appflow uses 17)",
        "AskUserQuestion answered: .sdkmanrc over gradle.properties (a path from one machine breaks the others)",
        "`npx cap sync` rejected with a rule (ios/ is Marta's, a Linux sync breaks Podfile.lock); `npx cap sync android` instead",
        "todos (iOS to Marta, README sdk env) and an open question (Redsys plugin for Capacitor 6) in the last message",
    ],
    "language": "es",
    "empty": False,
    "items": [
        {"id": "b1", "type": "bug_note",
         "match": [["major version 65"], ["JDK 21", "java 21", "21"]],
         "note": "Con Capacitor 6 (Gradle 8.2.1) el build de Android falla con JDK 21: Unsupported class file major version 65; hay que compilar con JDK 17."},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "constraint"],
         "match": [["wrapper", "8.7"], ["cap migrate", "capacitor", "JVM-target"]],
         "note": "Subir el wrapper a Gradle 8.7 rompió capacitor-camera (JVM-target 17/21); revertido: el wrapper lo gestiona Capacitor y cap migrate lo machaca."},
        {"id": "d1", "type": "decision",
         "match": [[".sdkmanrc", "sdkman"], ["gradle.properties", "ruta", "equipo"]],
         "note": "JDK 17 fijado con .sdkmanrc (java=17.0.11-tem): todo el equipo usa sdkman; una ruta local en gradle.properties rompe el build a los demás."},
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["cap sync"], ["ios", "Podfile", "Marta"]],
         "note": "Nunca npx cap sync a secas: toca ios/, que lleva Marta en su Mac (rompe Podfile.lock); solo npx cap sync android."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "project_fact", "preference"], "required": False,
         "match": [["appflow"], ["17"]],
         "note": "Appflow compila con JDK 17."},
        {"id": "t1", "type": "todo",
         "match": [["README"], ["sdk env"]],
         "note": "Álvaro pone mañana en el README lo de sdk env."},
        {"id": "t2", "type": "todo",
         "match": [["ios"], ["Marta"], ["capacitor 6", "build", "pasa"]],
         "note": "El build de iOS con Capacitor 6 no está probado; se lo pasa a Marta."},
        {"id": "q1", "type": "open_question",
         "match": [["redsys"], ["capacitor 6", "mergear", "merge"]],
         "note": "¿El plugin de Redsys tiene versión para Capacitor 6? Mirarlo antes de mergear."},
        {"id": "v1", "type": "verified_command", "command": "source ~/.sdkman/bin/sdkman-init.sh && sdk env && cd android && ./gradlew assembleDebug"},
        {"id": "v2", "type": "verified_command", "command": "npm run build && npx cap sync android"},
        {"id": "v3", "type": "verified_command", "required": False, "command": "npm test -- --watch=false --browsers=ChromeHeadless"},
    ],
    "secrets": [],
    "forbidden": [["doesn't want to proceed"], ["User has answered your questions"]],
}
