# ruff: noqa: E501  (verbatim command output and file contents)
"""Bash deploy script hardening (set -euo pipefail, flock, bats, shellcheck) for CentOS 7 hosts; a DB password leaked by `set -x` output; a prod run refused with a story (Spanish, Mexico)."""

from make_sessions import Session

PGPASS = "Alm4c3n-stg-2025!qz"

RELEASE_SH = '''#!/usr/bin/env bash
# Despliega almacen-api a los servidores de un ambiente.
# Uso: deploy/release.sh <staging|prod> [--dry-run]

source "$(dirname "$0")/lib.sh"

AMBIENTE=$1
DRY_RUN=${2:-}
cargar_ambiente "$AMBIENTE"

LOG=/var/log/almacen/deploy-$(date +%Y%m%d-%H%M%S).log

log "Desplegando $VERSION a $AMBIENTE ($HOSTS)"

for h in $HOSTS; do
  rsync -az --delete build/ deploy@$h:/opt/almacen/releases/$VERSION/ &
done
wait

log "Migraciones"
PGPASSWORD=$DB_PASSWORD psql -h "$DB_HOST" -U almacen -d almacen -f migraciones/pendientes.sql | tee -a "$LOG"

for h in $HOSTS; do
  ssh deploy@$h "ln -sfn /opt/almacen/releases/$VERSION /opt/almacen/actual && sudo systemctl restart almacen-api"
done
log "Listo"
'''

LIB_SH = '''#!/usr/bin/env bash

log() {
  echo "[$(date +%H:%M:%S)] $*"
}

cargar_ambiente() {
  case "$1" in
    staging) HOSTS="10.8.1.21 10.8.1.22"; DB_HOST=10.8.1.30 ;;
    prod)    HOSTS="10.8.0.11 10.8.0.12 10.8.0.13"; DB_HOST=10.8.0.30 ;;
    *) echo "ambiente desconocido: $1" >&2; exit 2 ;;
  esac
  VERSION=$(git describe --tags --always)
  DB_PASSWORD=$(vault kv get -field=password "secret/almacen/$1/db")
}
'''

BATS = '''#!/usr/bin/env bats

setup() {
  export PATH="$BATS_TEST_DIRNAME/stubs:$PATH"
  export STUB_LOG="$BATS_TEST_TMPDIR/llamadas"
  export ALMACEN_LOG_DIR="$BATS_TEST_TMPDIR"
}

@test "ambiente desconocido sale con 2" {
  run deploy/release.sh qa
  [ "$status" -eq 2 ]
}

@test "dry-run no toca los servidores" {
  run deploy/release.sh staging --dry-run
  [ "$status" -eq 0 ]
  ! grep -q '^ssh' "$STUB_LOG"
}

@test "migración fallida aborta el deploy" {
  export STUB_PSQL_EXIT=3
  run deploy/release.sh staging
  [ "$status" -ne 0 ]
  ! grep -q 'systemctl restart' "$STUB_LOG"
}
'''


def build() -> Session:
    s = Session("bash-deploy-flock-es", cwd="/home/rodrigo/proyectos/almacen-api", branch="deploy-robusto",
                start="2026-03-19T17:05:12.448Z", version="2.1.59", slug="bodega-lock-quetzal")
    s.user(
        "oye necesito que el script de deploy sea menos frágil. dos cosas pasaron esta semana: el martes falló una migración y el "
        "script siguió como si nada, reinició la API con el esquema a medias. y el jueves dos personas lanzaron el deploy desde Jenkins "
        "al mismo tiempo y el rsync quedó a medias en un servidor. ojo: tiene que correr en bash 4.2, los servidores de la bodega siguen en CentOS 7",
        wait=5,
    )
    s.call(s.read_call("deploy/release.sh", RELEASE_SH), s.read_call("deploy/lib.sh", LIB_SH))
    s.todo([
        ("Abortar el deploy si falla la migración", "in_progress", "Haciendo que una migración fallida aborte el deploy"),
        ("Evitar dos deploys a la vez", "pending", "Evitando deploys concurrentes"),
        ("Tests bats + shellcheck", "pending", "Escribiendo tests bats"),
    ])
    s.say(
        "Veo las dos causas:\n\n"
        "- No hay `set -e` y, aunque lo hubiera, `psql ... | tee -a \"$LOG\"` devuelve el código de `tee` (0): el fallo "
        "de `psql` se pierde en el pipe. Hace falta `set -o pipefail`.\n"
        "- Los `rsync` en segundo plano y un `wait` sin argumentos: `wait` devuelve 0 aunque un rsync haya fallado.\n\n"
        "Primero un test que lo demuestre. Hay stubs en `test/stubs/`?"
    )
    s.bash("ls test/ test/stubs/", '''test/:
release.bats
stubs

test/stubs/:
psql
rsync
ssh
vault''', desc="¿Qué hay en test/?")
    s.read("test/release.bats", BATS.split('@test "migración fallida')[0].rstrip() + "\n")
    s.edit("test/release.bats", '''  ! grep -q '^ssh' "$STUB_LOG"
}
''', '''  ! grep -q '^ssh' "$STUB_LOG"
}

@test "migración fallida aborta el deploy" {
  export STUB_PSQL_EXIT=3
  run deploy/release.sh staging
  [ "$status" -ne 0 ]
  ! grep -q 'systemctl restart' "$STUB_LOG"
}
''')
    s.bash("bats test/release.bats 2>&1 | tail -6", '''ok 1 ambiente desconocido sale con 2
ok 2 dry-run no toca los servidores
not ok 3 migración fallida aborta el deploy
# (in test file test/release.bats, line 23)
#   `[ "$status" -ne 0 ]' failed
# [10:21:44] Listo''', desc="Tests bats", secs=6)
    s.say("Reproducido: con `psql` saliendo con 3 el script llega hasta \"Listo\". Agrego `set -euo pipefail` y hago que el `wait` revise cada rsync.")
    s.edit("deploy/release.sh", '''# Uso: deploy/release.sh <staging|prod> [--dry-run]

source "$(dirname "$0")/lib.sh"''', '''# Uso: deploy/release.sh <staging|prod> [--dry-run]
set -euo pipefail

# shellcheck source=deploy/lib.sh
source "$(dirname "$0")/lib.sh"''')
    s.edit("deploy/release.sh", '''for h in $HOSTS; do
  rsync -az --delete build/ deploy@$h:/opt/almacen/releases/$VERSION/ &
done
wait''', '''for h in $HOSTS; do
  rsync -az --delete build/ "deploy@$h:/opt/almacen/releases/$VERSION/" &
done
while true; do
  wait -n || { rc=$?; [ "$rc" -eq 127 ] && break; log "rsync falló ($rc)"; exit 1; }
done''')
    s.edit("deploy/release.sh", '''AMBIENTE=$1
DRY_RUN=${2:-}''', '''AMBIENTE=${1:?uso: release.sh <staging|prod> [--dry-run]}
DRY_RUN=${2:-}''')
    s.bash("bats test/release.bats", '''1..3
ok 1 ambiente desconocido sale con 2
ok 2 dry-run no toca los servidores
ok 3 migración fallida aborta el deploy''', desc="Tests bats", secs=6)
    s.say("Verde en mi máquina, pero aquí tengo bash 5. Lo corro en un contenedor CentOS 7 para el bash 4.2:")
    s.bash('docker run --rm -v "$PWD":/src -w /src centos:7 bash -c "yum -q -y install epel-release >/dev/null && yum -q -y install bats >/dev/null && bash --version | head -1 && bats test/release.bats" 2>&1 | tail -8', '''GNU bash, version 4.2.46(2)-release (x86_64-redhat-linux-gnu)
1..3
ok 1 ambiente desconocido sale con 2
not ok 2 dry-run no toca los servidores
# (in test file test/release.bats, line 15)
#   `[ "$status" -eq 0 ]' failed
# deploy/release.sh: line 24: wait: -n: invalid option
# wait: usage: wait [id]''', desc="bats en CentOS 7", secs=95)
    s.say(
        "Justo lo que temías: `wait -n` es de bash 4.3, en 4.2 no existe. Lo cambio por guardar los PIDs y esperar uno por uno, "
        "que funciona en cualquier bash:"
    )
    s.edit("deploy/release.sh", '''for h in $HOSTS; do
  rsync -az --delete build/ "deploy@$h:/opt/almacen/releases/$VERSION/" &
done
while true; do
  wait -n || { rc=$?; [ "$rc" -eq 127 ] && break; log "rsync falló ($rc)"; exit 1; }
done''', '''pids=()
for h in $HOSTS; do
  rsync -az --delete build/ "deploy@$h:/opt/almacen/releases/$VERSION/" &
  pids+=("$!")
done
for p in "${pids[@]}"; do
  wait "$p" || { log "rsync falló (pid $p)"; exit 1; }
done''')
    s.bash('docker run --rm -v "$PWD":/src -w /src centos:7 bash -c "yum -q -y install epel-release >/dev/null && yum -q -y install bats >/dev/null && bats test/release.bats"', '''1..3
ok 1 ambiente desconocido sale con 2
ok 2 dry-run no toca los servidores
ok 3 migración fallida aborta el deploy''', desc="bats en CentOS 7", secs=90)
    s.todo([
        ("Abortar el deploy si falla la migración", "completed", "Haciendo que una migración fallida aborte el deploy"),
        ("Evitar dos deploys a la vez", "in_progress", "Evitando deploys concurrentes"),
        ("Tests bats + shellcheck", "pending", "Escribiendo tests bats"),
    ])
    s.say(
        "Ahora los deploys simultáneos. Uso `flock` sobre un archivo de lock en el servidor de Jenkins: si ya hay un deploy "
        "corriendo, el segundo sale de inmediato con un mensaje en vez de pisar el rsync del primero. `flock` viene en util-linux, "
        "está en CentOS 7."
    )
    s.edit("deploy/release.sh", '''LOG=/var/log/almacen/deploy-$(date +%Y%m%d-%H%M%S).log
''', '''LOG=${ALMACEN_LOG_DIR:-/var/log/almacen}/deploy-$(date +%Y%m%d-%H%M%S).log

exec 9>"/var/lock/almacen-deploy-$AMBIENTE.lock"
if ! flock -n 9; then
  log "Ya hay un deploy a $AMBIENTE corriendo; no lanzo otro."
  exit 3
fi
''')
    s.say("Para ver el flujo completo contra staging en modo dry-run, con traza:")
    s.bash("bash -x deploy/release.sh staging --dry-run 2>&1 | grep -n 'PGPASSWORD\\|flock\\|rsync'", f'''31:+ flock -n 9
38:+ rsync -az --delete build/ deploy@10.8.1.21:/opt/almacen/releases/v2.14.0-3-g9e1c2aa/
39:+ rsync -az --delete build/ deploy@10.8.1.22:/opt/almacen/releases/v2.14.0-3-g9e1c2aa/
44:+ PGPASSWORD={PGPASS}
45:+ psql -h 10.8.1.30 -U almacen -d almacen -f migraciones/pendientes.sql''', desc="Traza del dry-run en staging")
    s.say(
        "Dos problemas a la vista:\n\n"
        "1. El `--dry-run` no es dry: hace rsync y psql de verdad. `DRY_RUN` se lee pero nadie lo usa. (El test 2 solo mira "
        "`ssh`, por eso pasaba.)\n"
        "2. Con `bash -x` la contraseña de la base de staging sale en claro en la traza — lo acabo de imprimir aquí. Si alguien "
        "activa `-x` en Jenkins, queda en los logs del job. Habría que rotarla.\n\n"
        "Para 2, paso la contraseña a `psql` por `PGPASSFILE` temporal en vez de la variable en la línea de comando, así "
        "no aparece en ninguna traza."
    )
    s.edit("deploy/release.sh", '''PGPASSWORD=$DB_PASSWORD psql -h "$DB_HOST" -U almacen -d almacen -f migraciones/pendientes.sql | tee -a "$LOG"''', '''if [ "$DRY_RUN" = "--dry-run" ]; then
  log "(dry-run) psql -f migraciones/pendientes.sql en $DB_HOST"
else
  { set +x; } 2>/dev/null
  PGPASSFILE=$(mktemp)
  trap 'rm -f "$PGPASSFILE"' EXIT
  printf '%s:5432:almacen:almacen:%s\\n' "$DB_HOST" "$DB_PASSWORD" > "$PGPASSFILE"
  export PGPASSFILE
  psql -h "$DB_HOST" -U almacen -d almacen -v ON_ERROR_STOP=1 -f migraciones/pendientes.sql | tee -a "$LOG"
fi''')
    s.edit("deploy/release.sh", '''pids=()
for h in $HOSTS; do
  rsync -az --delete build/ "deploy@$h:/opt/almacen/releases/$VERSION/" &''', '''pids=()
for h in $HOSTS; do
  if [ "$DRY_RUN" = "--dry-run" ]; then log "(dry-run) rsync a $h"; continue; fi
  rsync -az --delete build/ "deploy@$h:/opt/almacen/releases/$VERSION/" &''')
    s.say("Y `-v ON_ERROR_STOP=1`: sin él `psql -f` sigue con el resto del archivo después de un error y sale con 0. Pruebo lo mismo contra prod para confirmar que el dry-run ya no toca nada:")
    s.bash_rejected("bash -x deploy/release.sh prod --dry-run", desc="Dry-run contra prod",
                    reason="no. contra prod nunca desde tu máquina ni desde la mía, ni en dry-run. la última vez alguien corrió esto 'en dry-run' contra prod desde su laptop, el dry-run no funcionaba (como acabas de ver) y migró la base de prod con la rama equivocada. perdimos un día restaurando. prod solo desde el job de Jenkins")
    s.say("Entendido, nada contra prod desde aquí. Lo cubro con los stubs: un test que confirme que el dry-run no llama ni a rsync ni a psql, y otro para el lock.")
    s.edit("test/release.bats", '''  ! grep -q '^ssh' "$STUB_LOG"
}''', '''  ! grep -q '^ssh' "$STUB_LOG"
  ! grep -q '^rsync' "$STUB_LOG"
  ! grep -q '^psql' "$STUB_LOG"
}

@test "un segundo deploy al mismo ambiente no arranca" {
  exec 9>"/var/lock/almacen-deploy-staging.lock"
  flock -n 9
  run deploy/release.sh staging
  [ "$status" -eq 3 ]
  [[ "$output" == *"Ya hay un deploy"* ]]
}''')
    s.bash("bats test/release.bats && shellcheck -x deploy/release.sh deploy/lib.sh", '''1..4
ok 1 ambiente desconocido sale con 2
ok 2 dry-run no toca los servidores
ok 3 migración fallida aborta el deploy
ok 4 un segundo deploy al mismo ambiente no arranca''', desc="bats + shellcheck", secs=8)
    s.bash('docker run --rm -v "$PWD":/src -w /src centos:7 bash -c "yum -q -y install epel-release >/dev/null && yum -q -y install bats >/dev/null && bats test/release.bats"', '''1..4
ok 1 ambiente desconocido sale con 2
ok 2 dry-run no toca los servidores
ok 3 migración fallida aborta el deploy
ok 4 un segundo deploy al mismo ambiente no arranca''', desc="bats en CentOS 7", secs=92)
    s.todo([
        ("Abortar el deploy si falla la migración", "completed", "Haciendo que una migración fallida aborte el deploy"),
        ("Evitar dos deploys a la vez", "completed", "Evitando deploys concurrentes"),
        ("Tests bats + shellcheck", "completed", "Escribiendo tests bats"),
    ])
    s.say(
        "Listo:\n\n"
        "- `set -euo pipefail` + `ON_ERROR_STOP=1`: una migración fallida corta el deploy antes de reiniciar nada.\n"
        "- rsync en paralelo con `wait` por PID (no `wait -n`, que no existe en el bash 4.2 de CentOS 7; lo probé en el contenedor).\n"
        "- `flock -n` por ambiente: un segundo deploy sale con código 3.\n"
        "- `--dry-run` ahora es dry de verdad (antes hacía rsync y psql).\n"
        "- La contraseña va por un `PGPASSFILE` temporal, ya no sale en trazas `-x`.\n"
        "- 4 tests bats, verdes en bash 5 y en CentOS 7; shellcheck limpio.\n\n"
        "Pendiente de tu lado: la contraseña de staging quedó impresa en esta sesión, conviene rotarla."
    )
    s.turn_end()
    s.user(
        "va, la roto yo mañana en vault. una duda que no sé: Jenkins corre el job como usuario jenkins o deploy? si es jenkins "
        "no va a poder escribir en /var/lock/almacen-deploy-*.lock... le pregunto a Memo que montó el nodo",
        wait=70,
    )
    s.say("Tiene sentido preguntarle; si resulta ser `jenkins`, basta con crear el lockfile con permisos para ese usuario. No toco nada más.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Bash deploy script (rsync, psql, ssh, Vault) hardened with set -euo pipefail, flock and bats tests, Spanish (Mexico)",
        "a limit in the first prompt (bash 4.2, CentOS 7); `wait -n` failing in a centos:7 container behind `| tail`, replaced by waiting per PID",
        "a bats test failing behind `| tail` (migration failure ignored through `| tee`), then passing",
        "TodoWrite; the flock decision's why only in the user's first message (two simultaneous Jenkins deploys)",
        "a DB password printed by a `bash -x` trace (secret); --dry-run found not to be dry",
        "a prod dry-run rejected with a story (a laptop run migrated prod with the wrong branch, a day lost)",
        "todo the user takes (rotate the password tomorrow), question for a colleague (Jenkins user, Memo)",
    ],
    "language": "es",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "project_fact"],
         "match": [["bash 4.2"], ["CentOS 7"]],
         "note": "El script de deploy tiene que correr en bash 4.2: los servidores de la bodega siguen en CentOS 7."},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "bug_note"],
         "match": [["wait -n"], ["4.2", "4.3", "invalid option"]],
         "note": "wait -n no existe en bash 4.2 (es de 4.3): falló en el contenedor centos:7; se espera PID por PID."},
        {"id": "b1", "type": "bug_note",
         "match": [["pipefail"], ["tee", "migración"]],
         "note": "Una migración fallida no abortaba el deploy: sin set -e/pipefail, `psql | tee` devolvía el 0 de tee; ahora set -euo pipefail y ON_ERROR_STOP=1."},
        {"id": "d1", "type": "decision",
         "match": [["flock"], ["Jenkins", "al mismo tiempo", "a medias", "simultáneos"]],
         "note": "flock -n por ambiente en release.sh, porque dos deploys lanzados a la vez desde Jenkins dejaron un rsync a medias."},
        {"id": "b2", "type": "bug_note",
         "match": [["dry-run"], ["rsync", "psql", "DRY_RUN"]],
         "note": "--dry-run no era dry: DRY_RUN se leía pero nadie lo usaba, hacía rsync y psql de verdad."},
        {"id": "d2", "type": "decision", "types": ["decision", "bug_note"],
         "match": [["PGPASSFILE"], ["traza", "-x"]],
         "note": "La contraseña de la base va por un PGPASSFILE temporal, porque con bash -x salía en claro en la traza."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["prod"], ["Jenkins"], ["un día", "restaurando", "laptop"]],
         "note": "Nunca correr el deploy contra prod desde una máquina local, ni en dry-run: una vez migró prod con la rama equivocada y se perdió un día; prod solo desde Jenkins."},
        {"id": "t1", "type": "todo",
         "match": [["rot"], ["vault", "mañana"]],
         "note": "Rodrigo rota mañana en Vault la contraseña de la base de staging que quedó impresa."},
        {"id": "q1", "type": "open_question",
         "match": [["jenkins"], ["Memo"], ["lock"]],
         "note": "¿Jenkins corre el job como jenkins o deploy? Si es jenkins no puede escribir el lockfile; preguntar a Memo."},
        {"id": "v1", "type": "verified_command", "command": "bats test/release.bats && shellcheck -x deploy/release.sh deploy/lib.sh"},
        {"id": "v2", "type": "verified_command", "command": 'docker run --rm -v "$PWD":/src -w /src centos:7 bash -c "yum -q -y install epel-release >/dev/null && yum -q -y install bats >/dev/null && bats test/release.bats"'},
        {"id": "v3", "type": "verified_command", "command": "bats test/release.bats", "required": False},
    ],
    "secrets": [PGPASS],
    "forbidden": [["doesn't want to proceed"], ["Todos have been modified"]],
}
