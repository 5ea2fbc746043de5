# ruff: noqa: E501  (verbatim command output and file contents)
"""Empty: a read-only question about GitLab CI running two pipelines per merge request (branch + MR pipelines), answered with Read/Grep/glab (Spanish)."""

from make_sessions import Session

GITLAB_CI = '''include:
  - project: plataforma/ci-templates
    ref: v4.2.0
    file: /templates/docker-build.yml
  - local: .gitlab/ci/tests.yml

stages:
  - test
  - build
  - deploy

variables:
  DOCKER_DRIVER: overlay2

lint:
  stage: test
  image: node:20-alpine
  script:
    - npm ci
    - npm run lint

deploy-staging:
  stage: deploy
  image: alpine/helm:3.14.4
  script:
    - helm upgrade --install reservas charts/reservas -n staging -f charts/values-staging.yaml --set image.tag=$CI_COMMIT_SHORT_SHA
  rules:
    - if: $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH
'''

TESTS_YML = '''unit:
  stage: test
  image: node:20-alpine
  script:
    - npm ci
    - npm test -- --ci
  rules:
    - if: $CI_PIPELINE_SOURCE == "merge_request_event"
    - if: $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH
    - if: $CI_COMMIT_BRANCH

e2e:
  stage: test
  image: mcr.microsoft.com/playwright:v1.47.0-jammy
  script:
    - npm ci
    - npx playwright test
  rules:
    - if: $CI_PIPELINE_SOURCE == "merge_request_event"
'''

TEMPLATE = '''# plataforma/ci-templates @ v4.2.0 : templates/docker-build.yml
docker-build:
  stage: build
  image: docker:26
  services: [docker:26-dind]
  script:
    - docker build -t $CI_REGISTRY_IMAGE:$CI_COMMIT_SHORT_SHA .
    - docker push $CI_REGISTRY_IMAGE:$CI_COMMIT_SHORT_SHA
'''


def build() -> Session:
    s = Session("gitlab-ci-pipelines-dobles-explain-es", cwd="/home/lucia/proyectos/reservas-api", branch="feature/cancelaciones",
                start="2026-10-06T09:14:55.310Z", version="2.1.80")
    s.user(
        "una duda, no cambies nada: por qué cada vez que abro un MR en reservas-api salen DOS pipelines? una dice "
        "\"merge request\" y la otra es la de la rama normal. Marcos me preguntó y no supe qué decirle",
        wait=6,
    )
    s.call(s.read_call(".gitlab-ci.yml", GITLAB_CI), s.read_call(".gitlab/ci/tests.yml", TESTS_YML))
    s.bash("glab ci list --per-page 6", '''Showing 6 pipelines on lucia/reservas-api (Page 1)

(success) • #118422	(#1031)	feature/cancelaciones	(about 2 hours ago)
(success) • #118421	(#1030)	refs/merge-requests/212/head	(about 2 hours ago)
(success) • #118377	(#1029)	feature/cancelaciones	(about 5 hours ago)
(success) • #118376	(#1028)	refs/merge-requests/212/head	(about 5 hours ago)
(success) • #118201	(#1027)	main	(yesterday)
(failed)  • #118190	(#1026)	feature/filtros-fecha	(yesterday)''', desc="Últimas pipelines (solo lectura)")
    s.grep("workflow:", content="", path=".")
    s.bash("glab api 'projects/plataforma%2Fci-templates/repository/files/templates%2Fdocker-build.yml/raw?ref=v4.2.0'", TEMPLATE, desc="Ver la plantilla incluida (solo lectura)")
    s.bash("glab api 'projects/:fullpath/pipelines/118421/jobs' | jq -r '.[].name'; echo ---; glab api 'projects/:fullpath/pipelines/118422/jobs' | jq -r '.[].name'", '''e2e
unit
docker-build
lint
---
unit
docker-build
lint''', desc="Qué jobs tuvo cada pipeline")
    s.say(
        "Pasa porque en GitLab hay dos tipos de pipeline y vuestro `.gitlab-ci.yml` dispara los dos:\n\n"
        "1. **Pipeline de rama** (`feature/cancelaciones`): se crea con cada `push` a la rama.\n"
        "2. **Pipeline de merge request** (`refs/merge-requests/212/head`): se crea porque hay un MR abierto y algún job "
        "tiene una regla `if: $CI_PIPELINE_SOURCE == \"merge_request_event\"`.\n\n"
        "Lo decisivo es que **no hay bloque `workflow:`** (el grep no encuentra nada), así que GitLab decide job por job:\n\n"
        "- `lint` (en `.gitlab-ci.yml`) y `docker-build` (de la plantilla `plataforma/ci-templates`) **no tienen `rules`**. "
        "Un job sin reglas entra en cualquier pipeline de rama *y* en las de MR, así que ellos solos ya hacen que existan "
        "las dos.\n"
        "- `unit` tiene tres reglas; la última, `if: $CI_COMMIT_BRANCH`, coincide con cualquier push a cualquier rama, "
        "y la primera con el MR: por eso sale en las dos.\n"
        "- `e2e` solo tiene la regla de MR, por eso la #118421 tiene un job más que la #118422.\n\n"
        "La regla de `unit` en ramas es reciente:"
    )
    s.bash("git log --oneline -3 -- .gitlab/ci/tests.yml", '''4c09b7e ci: unit también en ramas
a81e2d0 ci: e2e solo en MR
19f0c3a ci: separar tests en .gitlab/ci/tests.yml''', desc="Historia de tests.yml")
    s.say(
        "`4c09b7e` (\"unit también en ramas\") añadió esa tercera regla; antes `unit` solo corría en MR y en `main`.\n\n"
        "Resumen para Marcos: **sin `workflow:rules`, cada push a una rama con MR abierto crea una pipeline de rama "
        "(por los jobs sin reglas o con `$CI_COMMIT_BRANCH`) y otra de MR (por los jobs con `merge_request_event`)**. "
        "`e2e` solo corre en la de MR, por eso la #118421 tiene un job más.\n\n"
        "Solo como información, la forma habitual de evitarlo es un `workflow:rules` que descarte la pipeline de rama "
        "cuando hay un MR abierto (`$CI_OPEN_MERGE_REQUESTS`). No he tocado nada."
    )
    s.turn_end()
    s.user("ah vale. y por qué deploy-staging no sale en ninguna de las dos?", wait=60)
    s.say(
        "Porque su única regla es `if: $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH`: solo entra en pipelines de la rama por "
        "defecto (`main`). En una pipeline de MR `$CI_COMMIT_BRANCH` ni siquiera está definida (allí se usa "
        "`$CI_MERGE_REQUEST_SOURCE_BRANCH_NAME`), y en la de `feature/cancelaciones` no coincide con `main`. Lo puedes "
        "ver en la #118201 de ayer, que es de `main`:"
    )
    s.bash("glab api 'projects/:fullpath/pipelines/118201/jobs' | jq -r '.[].name'", '''deploy-staging
docker-build
unit
lint''', desc="Jobs de la pipeline de main")
    s.say("Ahí sí está `deploy-staging`. Así que es a propósito: staging solo se despliega al fusionar en `main`.")
    s.turn_end()
    s.user("perfecto, con eso se lo explico. gracias, era solo eso", wait=45)
    s.say("De nada.")
    s.turn_end()
    s.local_command("exit", "¡Hasta luego!", wait=7)
    return s


GOLD = {
    "covers": [
        "empty: a read-only question about GitLab CI (two pipelines per MR: branch and merge request pipelines)",
        "'no cambies nada' and 'era solo eso': nothing changed, decided or left to do",
        "Read/Grep/glab api/jq to look at the config, included template and jobs per pipeline; git log of the CI file",
        "workflow:rules mentioned only as information; a second question about deploy-staging answered",
        "/exit",
    ],
    "language": "es",
    "empty": True,
    "items": [],
    "secrets": [],
    "forbidden": [],
}
