# ruff: noqa: E501  (verbatim command output and file contents)
"""Empty: why an Argo CD app keeps flipping to OutOfSync; read-only digging and an explanation, nothing changed (Dutch)."""

from make_sessions import Session

APP_YAML = '''apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: bestellingen-api
  namespace: argocd
spec:
  project: team-orders
  source:
    repoURL: https://git.internal/platform/deploy.git
    targetRevision: main
    path: apps/bestellingen-api/overlays/prod
  destination:
    server: https://kubernetes.default.svc
    namespace: bestellingen
  syncPolicy:
    automated:
      prune: true
      selfHeal: true
'''

DEPLOY_YAML = '''apiVersion: apps/v1
kind: Deployment
metadata:
  name: bestellingen-api
spec:
  replicas: 3
  selector:
    matchLabels:
      app: bestellingen-api
  template:
    metadata:
      labels:
        app: bestellingen-api
    spec:
      containers:
        - name: api
          image: registry.internal/orders/bestellingen-api:4.12.0
'''

DIFF = '''===== apps/Deployment bestellingen/bestellingen-api ======
9c9
<   replicas: 3
---
>   replicas: 7'''


def build() -> Session:
    s = Session("argocd-outofsync-explain-nl", cwd="/home/sanne/src/deploy", branch="main",
                start="2026-04-14T12:02:55.730Z", version="2.1.63", slug="flapping-sync-heron")
    s.user(
        "vraagje, ik wil niks veranderen: bestellingen-api in argocd springt de hele dag op "
        "OutOfSync en dan weer Synced, terwijl er niemand iets merged. hoe kan dat?",
        wait=7,
    )
    s.call(s.read_call("apps/bestellingen-api/application.yaml", APP_YAML),
           s.read_call("apps/bestellingen-api/base/deployment.yaml", DEPLOY_YAML))
    s.grep("kind: HorizontalPodAutoscaler", ["apps/bestellingen-api/overlays/prod/hpa.yaml"], path="apps/bestellingen-api")
    s.bash("argocd app diff bestellingen-api --refresh", DIFF, code=1, desc="Diff tussen Git en cluster (alleen lezen)", secs=5)
    s.bash("kubectl -n bestellingen get hpa bestellingen-api", '''NAME               REFERENCE                     TARGETS   MINPODS   MAXPODS   REPLICAS   AGE
bestellingen-api   Deployment/bestellingen-api   71%/60%   3         12        7          212d''', desc="HPA-status")
    s.say(
        "Het zit in `replicas`. De Deployment in Git zegt `replicas: 3`, maar er staat ook een "
        "HorizontalPodAutoscaler op (`overlays/prod/hpa.yaml`, 3–12 pods) en die heeft hem nu op 7 "
        "gezet. Argo CD vergelijkt het live object met Git, ziet 7 ≠ 3 en meldt OutOfSync. Omdat "
        "`selfHeal: true` aanstaat, zet Argo hem terug naar 3 → Synced; even later schaalt de HPA weer "
        "op → OutOfSync. Ze vechten dus om hetzelfde veld, en bij elke ronde worden er pods weggehaald "
        "en weer gestart.\n\n"
        "Gebruikelijke oplossingen, ter info: `replicas` uit de Deployment halen als er een HPA is, "
        "of in de Application een `ignoreDifferences` op `/spec/replicas` zetten (met "
        "`RespectIgnoreDifferences=true` in de syncOptions, anders overschrijft een sync het veld alsnog)."
    )
    s.turn_end()
    s.user("aha. en dat `argocd app diff` met exit 1, betekent dat dat er iets stuk is?", wait=40)
    s.say(
        "Nee — `argocd app diff` geeft exit code 1 zodra er een verschil is en 0 als alles gelijk is, "
        "net als `diff`. Hier is het verschil precies die `replicas`-regel."
    )
    s.turn_end()
    s.user("ok helder, dank je. laat maar zo, was puur nieuwsgierigheid", wait=25)
    s.say("Graag gedaan, ik heb niets aangepast.")
    s.turn_end()
    s.local_command("exit", "Tot ziens!", wait=5)
    return s


GOLD = {
    "covers": [
        "a read-only question about an Argo CD app flapping between OutOfSync and Synced (HPA vs selfHeal on replicas), Dutch",
        "Read/Grep/`argocd app diff` (exit 1 on a difference)/`kubectl get hpa`, an explanation with fixes mentioned only as information",
        "\"ik wil niks veranderen\", \"was puur nieuwsgierigheid\"; `/exit`",
    ],
    "language": "nl",
    "empty": True,
    "items": [],
    "secrets": [],
    "forbidden": [],
}
