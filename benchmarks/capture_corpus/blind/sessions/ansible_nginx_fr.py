# ruff: noqa: E501  (verbatim command output and file contents)
"""Ansible role for nginx + internal PKI: slow dhparam, idempotence failure, prod run refused (French)."""

from make_sessions import Session

CHRONY_TASKS = '''---
- name: Installer chrony
  ansible.builtin.package:
    name: chrony
    state: present

- name: Déployer la configuration
  ansible.builtin.template:
    src: chrony.conf.j2
    dest: /etc/chrony/chrony.conf
    owner: root
    group: root
    mode: "0644"
  notify: Redémarrer chrony

- name: Activer chrony
  ansible.builtin.service:
    name: chrony
    state: started
    enabled: true
'''

MOLECULE = '''---
driver:
  name: podman
platforms:
  - name: instance
    image: docker.io/geerlingguy/docker-debian12-ansible:latest
    command: /lib/systemd/systemd
    privileged: true
    pre_build_image: true
provisioner:
  name: ansible
  config_options:
    defaults:
      callbacks_enabled: profile_tasks
  inventory:
    group_vars:
      all:
        nginx_server_name: web-test.interne.lan
        nginx_tls_cert: "{{ lookup('file', 'files/test-cert.pem') }}"
        nginx_tls_key: "{{ lookup('file', 'files/test-key.pem') }}"
verifier:
  name: ansible
'''

DEFAULTS = '''---
nginx_server_name: "{{ inventory_hostname }}"
nginx_upstream: "http://127.0.0.1:8080"
nginx_tls_dir: /etc/nginx/tls
nginx_dhparam_bits: 4096
# nginx_tls_cert / nginx_tls_key : contenu PEM, fourni par le vault de l'environnement
'''

TASKS_V1 = '''---
- name: Installer nginx
  ansible.builtin.package:
    name: nginx
    state: present

- name: Créer le répertoire TLS
  ansible.builtin.file:
    path: "{{ nginx_tls_dir }}"
    state: directory
    owner: root
    group: root
    mode: "0750"

- name: Déposer le certificat
  ansible.builtin.copy:
    content: "{{ nginx_tls_cert }}"
    dest: "{{ nginx_tls_dir }}/server.crt"
    owner: root
    group: root
    mode: "0644"
  notify: Recharger nginx

- name: Déposer la clé privée
  ansible.builtin.copy:
    content: "{{ nginx_tls_key }}"
    dest: "{{ nginx_tls_dir }}/server.key"
    owner: root
    group: root
  no_log: true
  notify: Recharger nginx

- name: Générer les paramètres DH
  community.crypto.openssl_dhparam:
    path: "{{ nginx_tls_dir }}/dhparam.pem"
    size: "{{ nginx_dhparam_bits }}"

- name: Déployer la configuration du site
  ansible.builtin.template:
    src: site.conf.j2
    dest: /etc/nginx/sites-available/default
    owner: root
    group: root
    mode: "0644"
    validate: nginx -t -c /etc/nginx/nginx.conf
  notify: Recharger nginx

- name: Activer nginx
  ansible.builtin.service:
    name: nginx
    state: started
    enabled: true
'''

SITE_V1 = '''# Généré par Ansible le {{ ansible_date_time.iso8601 }} — ne pas modifier à la main
server {
    listen 80;
    server_name {{ nginx_server_name }};
    return 301 https://$host$request_uri;
}

server {
    listen 443 ssl;
    http2 on;
    server_name {{ nginx_server_name }};

    ssl_certificate     {{ nginx_tls_dir }}/server.crt;
    ssl_certificate_key {{ nginx_tls_dir }}/server.key;
    ssl_dhparam         {{ nginx_tls_dir }}/dhparam.pem;
    ssl_protocols       TLSv1.2 TLSv1.3;
    ssl_ciphers         ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384;
    ssl_prefer_server_ciphers off;
    ssl_session_timeout 1d;
    ssl_session_cache   shared:TLS:10m;

    location / {
        proxy_pass {{ nginx_upstream }};
        proxy_set_header Host $host;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_set_header X-Forwarded-Proto https;
    }
}
'''


def build() -> Session:
    s = Session("ansible-nginx-fr", cwd="/home/camille/infra/ansible-web", branch="role-nginx-tls",
                start="2026-02-26T10:05:48.190Z", version="2.1.44", slug="calm-pruning-ibis")
    s.user(
        "Salut ! Il me faut un rôle `nginx` pour les serveurs web internes : nginx en reverse "
        "proxy devant l'appli, certificat de notre PKI interne (cert et clé sont déjà dans le "
        "vault de chaque environnement), TLS 1.2 minimum, redirection http → https.\n\n"
        "Deux règles de la maison : pas de `shell` ni de `command` quand un module fait le "
        "travail (ansible-lint le refuse en CI de toute façon), et toutes les variables du rôle "
        "préfixées par `nginx_`.",
        wait=5,
    )
    s.bash("ls roles/ && ls roles/chrony roles/chrony/molecule/default", """\
chrony
common
node_exporter
users
defaults
handlers
meta
molecule
tasks
templates
converge.yml
molecule.yml
verify.yml""", desc="Structure des rôles existants")
    s.call(s.read_call("roles/chrony/tasks/main.yml", CHRONY_TASKS),
           s.read_call("roles/chrony/molecule/default/molecule.yml", MOLECULE.replace("nginx_server_name: web-test.interne.lan\n        nginx_tls_cert: \"{{ lookup('file', 'files/test-cert.pem') }}\"\n        nginx_tls_key: \"{{ lookup('file', 'files/test-key.pem') }}\"", "chrony_servers: [ntp1.interne.lan]")))
    s.say(
        "Je reprends la structure de `chrony` : tâches nommées en français, modules en FQCN, "
        "scénario molecule sous podman avec l'image Debian 12. Pour les tests, je génère un "
        "certificat auto-signé dans `molecule/default/files/` à la place de celui de la PKI."
    )
    s.call(s.write_call("roles/nginx/defaults/main.yml", DEFAULTS),
           s.write_call("roles/nginx/tasks/main.yml", TASKS_V1),
           s.write_call("roles/nginx/templates/site.conf.j2", SITE_V1),
           s.write_call("roles/nginx/handlers/main.yml", '''---
- name: Recharger nginx
  ansible.builtin.service:
    name: nginx
    state: reloaded
'''),
           s.write_call("roles/nginx/molecule/default/molecule.yml", MOLECULE))
    s.bash("cd roles/nginx/molecule/default && mkdir -p files && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 -subj '/CN=web-test.interne.lan' -keyout files/test-key.pem -out files/test-cert.pem 2>&1 | tail -2",
           "", desc="Certificat de test auto-signé")
    s.bash("cd roles/nginx && molecule converge 2>&1 | tail -22", """\
TASK [nginx : Générer les paramètres DH] ***************************************
changed: [instance]
Thursday 26 February 2026  10:21:07 +0000 (0:09:02.318)       0:09:31.904 *****

TASK [nginx : Déployer la configuration du site] *******************************
changed: [instance]

TASK [nginx : Activer nginx] ***************************************************
ok: [instance]

RUNNING HANDLER [nginx : Recharger nginx] **************************************
changed: [instance]

PLAY RECAP *********************************************************************
instance                   : ok=10   changed=7    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0

Thursday 26 February 2026  10:21:09 +0000 (0:00:01.402)       0:09:33.306 *****
===============================================================================
nginx : Générer les paramètres DH ------------------------------------- 542.32s
nginx : Installer nginx ------------------------------------------------ 21.77s
nginx : Déployer la configuration du site ------------------------------- 1.38s""", desc="Molecule converge", secs=575.0, timeout=900000)
    s.say(
        "Ça converge, mais la génération des paramètres DH en 4096 bits a pris 9 minutes à "
        "elle seule (542 s sur 573). C'est le coût sur chaque nouveau serveur, et sur chaque "
        "`molecule test` en CI.\n\n"
        "On n'en a pas besoin : la config intermédiaire de Mozilla recommande le groupe "
        "prédéfini `ffdhe2048` de la RFC 7919 plutôt que des paramètres générés par machine — "
        "il est standard et sans risque connu. Je le livre comme fichier statique du rôle et "
        "je supprime la tâche `openssl_dhparam` (et donc la dépendance à `community.crypto`)."
    )
    s.bash("curl -fsSL https://ssl-config.mozilla.org/ffdhe2048.txt -o roles/nginx/files/ffdhe2048.pem && head -1 roles/nginx/files/ffdhe2048.pem",
           "-----BEGIN DH PARAMETERS-----", desc="Groupe ffdhe2048 (RFC 7919)")
    s.edit("roles/nginx/tasks/main.yml", '''- name: Générer les paramètres DH
  community.crypto.openssl_dhparam:
    path: "{{ nginx_tls_dir }}/dhparam.pem"
    size: "{{ nginx_dhparam_bits }}"''', '''- name: Déposer le groupe DH ffdhe2048 (RFC 7919)
  ansible.builtin.copy:
    src: ffdhe2048.pem
    dest: "{{ nginx_tls_dir }}/dhparam.pem"
    owner: root
    group: root
    mode: "0644"
  notify: Recharger nginx''')
    s.edit("roles/nginx/defaults/main.yml", "nginx_dhparam_bits: 4096\n", "")
    s.bash("cd roles/nginx && molecule test 2>&1 | tail -25", """\
INFO     default scenario test matrix: dependency, cleanup, destroy, syntax, create, prepare, converge, idempotence, side_effect, verify, cleanup, destroy
INFO     Running default > converge
PLAY RECAP *********************************************************************
instance                   : ok=10   changed=7    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0

INFO     Running default > idempotence

PLAY [Converge] ****************************************************************

TASK [nginx : Déployer la configuration du site] *******************************
changed: [instance]

RUNNING HANDLER [nginx : Recharger nginx] **************************************
changed: [instance]

PLAY RECAP *********************************************************************
instance                   : ok=10   changed=2    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0

CRITICAL Idempotence test failed because of the following tasks:
*  => nginx : Déployer la configuration du site
*  => nginx : Recharger nginx
INFO     Running default > cleanup
INFO     Running default > destroy
INFO     Pruning extra files from scenario ephemeral directory""", desc="Molecule test complet", secs=95.0, timeout=900000)
    s.say(
        "Plus d'attente sur les paramètres DH, mais le test d'idempotence échoue (le `| tail` a avalé "
        "le code de sortie, la ligne CRITICAL fait foi). Coupable : l'en-tête du template, "
        "`{{ ansible_date_time.iso8601 }}`. La date change à chaque exécution, donc le fichier "
        "aussi, donc nginx est rechargé à chaque passage — y compris en prod, à chaque run "
        "AWX. `ansible_managed` dit la même chose sans horodatage."
    )
    s.edit("roles/nginx/templates/site.conf.j2",
           "# Généré par Ansible le {{ ansible_date_time.iso8601 }} — ne pas modifier à la main",
           "{{ ansible_managed | comment }}")
    s.bash("cd roles/nginx && molecule test 2>&1 | tail -12", """\
INFO     Running default > idempotence
INFO     Idempotence completed successfully.
INFO     Running default > side_effect
WARNING  Skipping, side effect playbook not configured.
INFO     Running default > verify
INFO     Running Ansible Verifier

PLAY RECAP *********************************************************************
instance                   : ok=4    changed=0    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0

INFO     Verifier completed successfully.
INFO     Running default > destroy""", desc="Molecule test complet", secs=90.0, timeout=900000)
    s.bash("ansible-lint roles/nginx", """\
WARNING  Listing 1 violation(s) that are fatal
risky-file-permissions: File permissions unset or incorrect.
roles/nginx/tasks/main.yml:25 Task/Handler: Déposer la clé privée

Read documentation for instructions on how to ignore specific rule violations.

                  Rule Violation Summary
 count tag                    profile    rule associated tags
     1 risky-file-permissions safety     unpredictability

Failed: 1 failure(s), 0 warning(s) on 9 files. Last profile that met the validation criteria was 'moderate'. Rating: 2/5 star""",
           code=2, desc="ansible-lint sur le rôle", secs=12.0)
    s.say("Bien vu par ansible-lint : la clé privée était déposée sans `mode`, donc avec l'umask "
          "du compte — potentiellement lisible par tous. `0600`, propriétaire root.")
    s.edit("roles/nginx/tasks/main.yml", '''    dest: "{{ nginx_tls_dir }}/server.key"
    owner: root
    group: root
  no_log: true''', '''    dest: "{{ nginx_tls_dir }}/server.key"
    owner: root
    group: root
    mode: "0600"
  no_log: true''')
    s.bash("ansible-lint roles/nginx", "Passed: 0 failure(s), 0 warning(s) on 9 files. Last profile that met the validation criteria was 'production'.",
           desc="ansible-lint sur le rôle", secs=11.0)
    s.read("site.yml", '''---
- name: Base commune
  hosts: all
  become: true
  roles:
    - common
    - users
    - chrony

- name: Serveurs web
  hosts: web
  become: true
  roles:
    - node_exporter
''')
    s.edit("site.yml", '''  hosts: web
  become: true
  roles:
    - node_exporter
''', '''  hosts: web
  become: true
  roles:
    - node_exporter
    - nginx
''')
    s.say("Le rôle est branché sur le groupe `web` dans `site.yml`. Je vérifie en `--check "
          "--diff` ce qu'il changerait sur les vrais serveurs.")
    s.bash_rejected(
        "ansible-playbook -i inventories/prod/hosts.yml site.yml --limit web --check --diff",
        desc="Dry-run sur les serveurs web de prod",
        reason="non, jamais de playbook contre la prod depuis un poste, même en --check : tout "
               "passe par AWX, c'est là que sont les credentials du vault prod et les logs "
               "d'audit. la préprod tu peux",
    )
    s.say("Compris, la prod passe uniquement par AWX. Même vérification sur la préprod :")
    s.bash("ansible-playbook -i inventories/preprod/hosts.yml site.yml --limit web --check --diff 2>&1 | tail -12", """\
TASK [nginx : Déployer la configuration du site] *******************************
--- before
+++ after: /home/camille/.ansible/tmp/ansible-local-81234/tmpq1x0/site.conf.j2
@@ -0,0 +1,30 @@
+# Ansible managed
+server {
+    listen 80;
changed: [web-pp-01.interne.lan]
changed: [web-pp-02.interne.lan]

PLAY RECAP *********************************************************************
web-pp-01.interne.lan      : ok=14   changed=7    unreachable=0    failed=0    skipped=1    rescued=0    ignored=0
web-pp-02.interne.lan      : ok=14   changed=7    unreachable=0    failed=0    skipped=1    rescued=0    ignored=0""",
           desc="Dry-run sur la préprod", secs=48.0)
    s.say(
        "Sur la préprod, le dry-run passe sur les deux serveurs (7 changements chacun : "
        "paquet, fichiers TLS, config, reload), aucune erreur de variable — le vault préprod "
        "fournit bien `nginx_tls_cert` et `nginx_tls_key`.\n\n"
        "Récap :\n"
        "- rôle `roles/nginx` : reverse proxy, redirection http→https, TLS 1.2/1.3, cert et "
        "clé de la PKI depuis le vault (clé en `0600`, `no_log`), variables toutes en "
        "`nginx_` ;\n"
        "- groupe DH `ffdhe2048` livré en fichier, plus de génération (–9 min par serveur) ;\n"
        "- en-tête `ansible_managed` au lieu de la date, le rôle est idempotent ;\n"
        "- `molecule test` et `ansible-lint` verts, aucun `shell`/`command`.\n\n"
        "Pas fait exprès : HSTS. Avec `includeSubDomains` il casserait tout sous-domaine "
        "`interne.lan` encore servi en http ; à activer quand tous les sous-domaines auront "
        "un certificat de la PKI.\n\n"
        "Et une question ouverte : le renouvellement. Les certificats de la PKI expirent au "
        "bout d'un an, et rien ne redéploie le cert ni ne recharge nginx quand le vault change "
        "— faut-il une tâche planifiée dans AWX, ou c'est déjà géré côté PKI ?"
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Ansible role + molecule (podman) + ansible-lint, whole session in French",
        "two rules in the first prompt (no shell/command when a module exists; nginx_ prefix)",
        "9-minute openssl_dhparam task dropped for a static ffdhe2048 file",
        "idempotence failure behind `| tail` (exit 0) caused by a date in a template",
        "ansible-lint failure with exit code 2 (risky-file-permissions) then pass",
        "a prod dry-run rejected by the user with a reason (= rule), preprod run instead",
        "todo (HSTS) and an open question (certificate renewal) at the end",
    ],
    "language": "fr",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["shell"], ["module"]],
         "note": "Pas de shell ni de command quand un module fait le travail (ansible-lint le refuse en CI)."},
        {"id": "c2", "type": "preference", "types": ["preference", "constraint"],
         "match": [["nginx_"], ["préfix", "variables"]],
         "note": "Toutes les variables du rôle sont préfixées par nginx_."},
        {"id": "c3", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["AWX"], ["prod"]],
         "note": "Jamais de playbook contre la prod depuis un poste, même en --check : tout passe "
                 "par AWX (credentials du vault prod, logs d'audit) ; la préprod est permise."},
        {"id": "c4", "type": "constraint", "types": ["constraint", "project_fact", "decision"],
         "match": [["TLS 1.2", "TLSv1.2"]],
         "note": "TLS 1.2 minimum sur les serveurs web internes."},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "decision"],
         "match": [["dhparam", "DH"], ["ffdhe2048", "9 minutes", "542"]],
         "note": "Générer des paramètres DH 4096 bits (openssl_dhparam) prenait 9 minutes par "
                 "serveur ; remplacé par le groupe ffdhe2048 de la RFC 7919 livré en fichier."},
        {"id": "b1", "type": "bug_note",
         "match": [["idempoten"], ["ansible_date_time", "date", "ansible_managed"]],
         "note": "Le test d'idempotence échouait : l'en-tête du template contenait "
                 "ansible_date_time, nginx était rechargé à chaque run ; remplacé par ansible_managed."},
        {"id": "b2", "type": "bug_note", "required": False,
         "match": [["risky-file-permissions", "0600"], ["clé", "key"]],
         "note": "La clé privée était déposée sans mode ; maintenant 0600."},
        {"id": "t1", "type": "todo",
         "match": [["HSTS"], ["sous-domaine", "includeSubDomains"]],
         "note": "HSTS pas activé : à faire quand tous les sous-domaines interne.lan auront un "
                 "certificat (includeSubDomains)."},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo"],
         "match": [["renouvellement", "expirent"], ["AWX", "PKI", "vault"]],
         "note": "Qui renouvelle les certificats de la PKI (1 an) et recharge nginx quand le vault "
                 "change : tâche AWX planifiée ou PKI ?"},
        {"id": "v1", "type": "verified_command", "command": "cd roles/nginx && molecule test"},
        {"id": "v2", "type": "verified_command", "command": "ansible-lint roles/nginx"},
        {"id": "v3", "type": "verified_command", "required": False,
         "command": "ansible-playbook -i inventories/preprod/hosts.yml site.yml --limit web --check --diff"},
        {"id": "v4", "type": "verified_command", "required": False,
         "command": "cd roles/nginx && molecule converge"},
    ],
    "secrets": [],
    "forbidden": [["doesn't want to proceed"]],
}
