# ruff: noqa: E501  (verbatim command output and file contents)
"""Helm chart for a Python API: the user mixes Russian and English in one session (mixed)."""

from make_sessions import Session

VALUES = '''replicaCount: 2

image:
  repository: registry.gitlab.com/kvant/api
  tag: ""
  pullPolicy: IfNotPresent

service:
  port: 8000

env:
  LOG_LEVEL: info
  DATABASE_URL: ""

resources: {}
'''

DEPLOYMENT = '''apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "api.fullname" . }}
  labels: {{- include "api.labels" . | nindent 4 }}
spec:
  replicas: {{ .Values.replicaCount }}
  selector:
    matchLabels: {{- include "api.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels: {{- include "api.selectorLabels" . | nindent 8 }}
    spec:
      containers:
        - name: api
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
          ports:
            - containerPort: {{ .Values.service.port }}
          env:
            {{- range $k, $v := .Values.env }}
            - name: {{ $k }}
              value: {{ $v | quote }}
            {{- end }}
          resources: {{- toYaml .Values.resources | nindent 12 }}
'''

EXTERNAL_SECRET = '''apiVersion: external-secrets.io/v1beta1
kind: ExternalSecret
metadata:
  name: {{ include "api.fullname" . }}-db
spec:
  refreshInterval: 1h
  secretStoreRef:
    kind: ClusterSecretStore
    name: vault-kv
  target:
    name: {{ include "api.fullname" . }}-db
  data:
    - secretKey: DATABASE_URL
      remoteRef:
        key: {{ .Values.externalSecrets.databaseUrlPath }}
        property: url
'''


def build() -> Session:
    s = Session("helm-chart-mixed-ru-en", cwd="/home/artem/kvant/api", branch="chart/resources-secrets",
                start="2026-03-13T09:05:31.447Z", version="2.1.50", slug="amber-mapping-lynx")
    s.summary_entry("Helm chart for api: values cleanup")
    s.user(
        "привет. надо привести в порядок helm chart в deploy/chart. две вещи:\n"
        "1) DATABASE_URL сейчас лежит прямо в values.yaml — в values никаких секретов, только "
        "через ExternalSecrets из Vault, как в остальных сервисах\n"
        "2) always set resource limits on every container. we had two nodes OOM-killed last "
        "month because of pods without limits",
        wait=4,
    )
    s.call(s.read_call("deploy/chart/values.yaml", VALUES),
           s.read_call("deploy/chart/templates/deployment.yaml", DEPLOYMENT))
    s.bash("grep -rn 'ExternalSecret' ../*/deploy/chart/templates/*.yaml 2>/dev/null | head -3", """\
../billing/deploy/chart/templates/externalsecret.yaml:2:kind: ExternalSecret
../notifier/deploy/chart/templates/externalsecret.yaml:2:kind: ExternalSecret""", desc="How other services do it")
    s.say(
        "Понял. В соседних сервисах (`billing`, `notifier`) `ExternalSecret` берёт значение из "
        "`ClusterSecretStore` `vault-kv` и создаёт обычный `Secret`; сделаю так же и подключу его "
        "через `envFrom.secretRef`, а `DATABASE_URL` уберу из `env` в values.\n\n"
        "For the limits: I'll set requests = limits for memory (so the scheduler reserves what the "
        "pod can actually use — a pod can't be OOM-killed for exceeding requests it never had), "
        "and a CPU request without a CPU limit, since CPU limits only throttle and don't protect "
        "the node. Defaults go in `values.yaml`, so every environment gets them unless it "
        "overrides."
    )
    s.write("deploy/chart/templates/externalsecret.yaml", EXTERNAL_SECRET)
    s.edit("deploy/chart/values.yaml", '''env:
  LOG_LEVEL: info
  DATABASE_URL: ""

resources: {}
''', '''env:
  LOG_LEVEL: info

# Secrets never go in values: they come from Vault through ExternalSecrets.
externalSecrets:
  databaseUrlPath: kv/api/database

# Every container must have limits (nodes were OOM-killed by pods without them).
resources:
  requests:
    cpu: 250m
    memory: 512
  limits:
    memory: 512
''')
    s.edit("deploy/chart/templates/deployment.yaml", '''          env:
            {{- range $k, $v := .Values.env }}''', '''          envFrom:
            - secretRef:
                name: {{ include "api.fullname" . }}-db
          env:
            {{- range $k, $v := .Values.env }}''')
    s.bash("helm lint deploy/chart && helm template api deploy/chart | kubeconform -strict -summary -ignore-missing-schemas", """\
==> Linting deploy/chart
[INFO] Chart.yaml: icon is recommended

1 chart(s) linted, 0 chart(s) failed
stdin - Deployment api is invalid: problem validating schema. Check JSON formatting: jsonschema: '/spec/template/spec/containers/0/resources/limits/memory' does not validate with https://raw.githubusercontent.com/yannh/kubernetes-json-schema/master/master-standalone-strict/deployment-apps-v1.json#/properties/spec/properties/template/properties/spec/properties/containers/items/properties/resources/properties/limits/additionalProperties/oneOf: oneOf failed, none matched
Summary: 4 resources found parsing stdin - Valid: 2, Invalid: 1, Errors: 0, Skipped: 1""",
           code=1, desc="Lint and validate the rendered chart", secs=5.0)
    s.say(
        "My mistake: `memory: 512` without a unit is 512 *bytes* to Kubernetes, and as a bare "
        "YAML integer it doesn't even match the quantity schema. It has to be `512Mi`. Good that "
        "kubeconform caught it — a 512-byte limit would have OOM-killed the pod at start."
    )
    s.edit("deploy/chart/values.yaml", '''  requests:
    cpu: 250m
    memory: 512
  limits:
    memory: 512
''', '''  requests:
    cpu: 250m
    memory: 512Mi
  limits:
    memory: 512Mi
''')
    s.bash("helm lint deploy/chart && helm template api deploy/chart | kubeconform -strict -summary -ignore-missing-schemas", """\
==> Linting deploy/chart
[INFO] Chart.yaml: icon is recommended

1 chart(s) linted, 0 chart(s) failed
Summary: 4 resources found parsing stdin - Valid: 3, Invalid: 0, Errors: 0, Skipped: 1""",
           desc="Lint and validate the rendered chart", secs=5.0)
    s.say("Chart is valid now (the skipped resource is the `ExternalSecret`, kubeconform has no "
          "schema for the CRD). Let me also check it against the real cluster with a server-side "
          "dry run:")
    s.bash("helm upgrade --install api deploy/chart -n api-staging --dry-run=server 2>&1 | tail -5",
           "Error: Kubernetes cluster unreachable: Get \"https://k8s-staging.kvant.internal:6443/version\": dial tcp 10.40.0.12:6443: i/o timeout",
           desc="Server-side dry run against staging", secs=32.0)
    s.user("не, кластер только через VPN, а он у меня сейчас выключен. don't bother with the "
           "cluster, CI does the dry run in the deploy job", wait=25)
    s.say("Ок, без кластера. Offline-проверка (`helm lint` + `kubeconform -strict`) уже зелёная; "
          "server-side dry run оставляю CI.")
    s.bash("helm template api deploy/chart | grep -n -A3 -E 'envFrom|resources:'", """\
41:          envFrom:
42-            - secretRef:
43-                name: api-db
44-          env:
52:          resources:
53-            limits:
54-              memory: 512Mi
55-            requests:""", desc="Check the rendered Deployment")
    s.say(
        "Готово / done:\n\n"
        "- `templates/externalsecret.yaml`: `DATABASE_URL` из Vault (`kv/api/database`, поле "
        "`url`) через `ClusterSecretStore` `vault-kv`; контейнер получает его через `envFrom`. "
        "В `values.yaml` секретов больше нет.\n"
        "- Resources by default: requests 250m CPU / 512Mi, memory limit 512Mi, no CPU limit.\n"
        "- `helm lint` and `kubeconform -strict` pass; the server-side dry run is left to CI.\n\n"
        "Осталось:\n"
        "- в Vault по пути `kv/api/database` должно лежать поле `url` — я не могу это проверить "
        "без VPN; если его нет, под не стартует (secret not found).\n"
        "- 512Mi is a guess from the Python worker's usual footprint; somebody should check real "
        "usage in Grafana after a week and adjust."
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "one user mixing Russian and English, replies mixed too",
        "resumed session with a `summary` entry",
        "rules in both languages",
        "kubeconform failure (exit 1, last in a pipe) then pass",
        "server-side dry run abandoned (cluster behind VPN, CI does it)",
        "decision with its why (no CPU limit)",
        "todos at the end",
    ],
    "language": "mixed",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["values"], ["ExternalSecret", "Vault"]],
         "note": "В values никаких секретов, только через ExternalSecrets из Vault."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["limit"], ["OOM"]],
         "note": "Always set resource limits on every container: nodes were OOM-killed by pods without limits."},
        {"id": "d1", "type": "decision",
         "match": [["requests", "request"], ["CPU limit", "throttl"]],
         "note": "Memory requests = limits, CPU request without a CPU limit: CPU limits only "
                 "throttle and don't protect the node."},
        {"id": "b1", "type": "bug_note",
         "match": [["512Mi"], ["bytes", "unit", "kubeconform"]],
         "note": "memory: 512 without a unit is 512 bytes and fails the quantity schema; use 512Mi."},
        {"id": "c3", "type": "constraint", "types": ["constraint", "preference", "failed_attempt"],
         "match": [["cluster", "кластер", "dry run"], ["CI", "VPN"]],
         "note": "Кластер только через VPN; don't bother with the cluster, CI does the server-side dry run."},
        {"id": "t1", "type": "todo", "types": ["todo", "open_question"],
         "match": [["Vault"], ["kv/api/database"]],
         "note": "Проверить, что в Vault по пути kv/api/database есть поле url, иначе под не стартует."},
        {"id": "t2", "type": "todo", "types": ["todo", "open_question"],
         "match": [["512Mi"], ["Grafana", "usage"]],
         "note": "512Mi is a guess; check real usage in Grafana after a week and adjust."},
        {"id": "v1", "type": "verified_command",
         "command": "helm lint deploy/chart && helm template api deploy/chart | kubeconform -strict -summary -ignore-missing-schemas"},
        {"id": "v2", "type": "verified_command", "required": False,
         "command": "helm template api deploy/chart"},
    ],
    "secrets": [],
    "forbidden": [],
}
