# ruff: noqa: E501  (verbatim command output and file contents)
"""Drupal 10 custom block "Prochains événements" stays stale (no cache tags); max-age 0 tried and refused (home leaves Varnish); page_cache ignores max-age; a Task subagent adds node_list + a cron-invalidated day tag and kernel tests; kernel test failing mid-output; `drush @prod cr` rejected (French)."""

from make_sessions import Call, Session

BLOCK_PHP = '''<?php

namespace Drupal\\agenda\\Plugin\\Block;

use Drupal\\Core\\Block\\BlockBase;
use Drupal\\Core\\Datetime\\DrupalDateTime;

/**
 * @Block(
 *   id = "agenda_prochains_evenements",
 *   admin_label = @Translation("Prochains événements"),
 * )
 */
class ProchainsEvenementsBlock extends BlockBase {

  public function build() {
    $now = new DrupalDateTime('now', 'UTC');
    $nids = \\Drupal::entityQuery('node')
      ->accessCheck(TRUE)
      ->condition('type', 'evenement')
      ->condition('status', 1)
      ->condition('field_date.end_value', $now->format('Y-m-d\\\\TH:i:s'), '>=')
      ->sort('field_date.value')
      ->range(0, 4)
      ->execute();
    $nodes = \\Drupal::entityTypeManager()->getStorage('node')->loadMultiple($nids);

    return [
      '#theme' => 'agenda_prochains',
      '#evenements' => $nodes,
    ];
  }

}
'''

AGENT_PROMPT = '''Site Drupal 10.3 (DDEV), module custom web/modules/custom/agenda. Le bloc ProchainsEvenementsBlock (src/Plugin/Block/ProchainsEvenementsBlock.php) n'a aucune métadonnée de cache : il reste figé (événements modifiés/dépubliés toujours affichés, événements passés jamais retirés).

À faire :
1. Dans build() : '#cache' => ['tags' => ['node_list', 'agenda:jour'], 'contexts' => ['user.permissions']] plus les tags des nodes affichés (Cache::mergeTags avec getCacheTags() de chaque node). PAS de max-age (ni 0 ni calculé) : max-age remonte jusqu'à la page et la home sortirait de Varnish ; de toute façon le module page_cache (activé) ignore max-age pour les anonymes.
2. agenda.module : hook_cron() qui invalide le tag 'agenda:jour' une fois par jour après minuit Europe/Paris (stocker la dernière date traitée dans State, clé agenda.dernier_jour_invalide). Le cron tourne toutes les 15 min.
3. Tests kernel dans tests/src/Kernel/ : (a) le bloc rendu porte node_list et agenda:jour ; (b) hook_cron invalide agenda:jour une seule fois par jour (deux appels le même jour = une invalidation).
Lance `ddev exec vendor/bin/phpunit web/modules/custom/agenda` et `ddev exec vendor/bin/phpcs --standard=Drupal,DrupalPractice web/modules/custom/agenda` à la fin. Ne touche ni à la config du site ni à prod.'''

AGENT_REPORT = '''C'est fait.

- `src/Plugin/Block/ProchainsEvenementsBlock.php` : `#cache` avec tags `node_list`, `agenda:jour` + tags des nodes affichés, contexte `user.permissions`. Pas de max-age.
- `agenda.module` : `agenda_cron()` compare la date du jour (Europe/Paris) à `agenda.dernier_jour_invalide` dans State et invalide `agenda:jour` si elle a changé.
- `tests/src/Kernel/ProchainsEvenementsCacheTest.php` : 2 tests (tags du bloc, invalidation unique par jour via un faux `datetime.time`).

phpcs : propre. phpunit : je n'ai pas réussi à le lancer, `ddev exec` répondait « Project agenda-site is not running » ; je n'ai pas démarré le projet sans ton accord.'''

TEST_FAIL = '''PHPUnit 10.5.20 by Sebastian Bergmann and contributors.

Runtime:       PHP 8.3.9
Configuration: /var/www/html/phpunit.xml

E.                                                                  2 / 2 (100%)

Time: 00:04.318, Memory: 10.00 MB

There was 1 error:

1) Drupal\\Tests\\agenda\\Kernel\\ProchainsEvenementsCacheTest::testBlocPorteLesTags
Drupal\\Core\\Entity\\Query\\QueryException: 'field_date' not found

/var/www/html/web/core/lib/Drupal/Core/Entity/Query/Sql/Tables.php:388
/var/www/html/web/core/lib/Drupal/Core/Entity/Query/Sql/Tables.php:258
/var/www/html/web/core/lib/Drupal/Core/Entity/Query/Sql/Condition.php:58
/var/www/html/web/core/lib/Drupal/Core/Entity/Query/Sql/Query.php:177
/var/www/html/web/core/lib/Drupal/Core/Entity/Query/Sql/Query.php:80
/var/www/html/web/modules/custom/agenda/src/Plugin/Block/ProchainsEvenementsBlock.php:27
/var/www/html/web/modules/custom/agenda/tests/src/Kernel/ProchainsEvenementsCacheTest.php:41
/var/www/html/vendor/phpunit/phpunit/src/Framework/TestCase.php:1154
/var/www/html/vendor/phpunit/phpunit/src/Framework/TestCase.php:598

--

ERRORS!
Tests: 2, Assertions: 3, Errors: 1.
Failed to execute command `vendor/bin/phpunit web/modules/custom/agenda`: exit status 2'''


def build() -> Session:
    s = Session("drupal-cache-tags-subagent-fr", cwd="/home/claire/projets/agenda-site", branch="fix/bloc-prochains-evenements",
                start="2026-06-17T13:48:09.207Z", version="2.1.47", slug="drupal-block-cache-tags")
    s.user(
        "le bloc « prochains événements » de la home montre encore un concert dépublié il y a 2h, et celui d'hier soir est tjrs dedans. "
        "les rédacs râlent. drupal 10.3, module custom agenda. tu regardes ?",
        wait=5,
    )
    s.glob("web/modules/custom/agenda/**/*", ["web/modules/custom/agenda/agenda.info.yml", "web/modules/custom/agenda/agenda.module",
                                               "web/modules/custom/agenda/src/Plugin/Block/ProchainsEvenementsBlock.php",
                                               "web/modules/custom/agenda/templates/agenda-prochains.html.twig"])
    s.read("web/modules/custom/agenda/src/Plugin/Block/ProchainsEvenementsBlock.php", BLOCK_PHP)
    s.bash("ddev drush pm:list --status=enabled --filter='page_cache|dynamic_page_cache|purge|varnish' --format=table", ''' ---------- ------------------------------------ --------- ---------
  Package    Name                                 Status    Version
 ---------- ------------------------------------ --------- ---------
  Core       Internal Page Cache (page_cache)     Enabled   10.3.1
  Core       Dynamic Page Cache                   Enabled   10.3.1
             (dynamic_page_cache)
  Purge      Purge (purge)                        Enabled   8.x-3.6
  Purge      Varnish purger (varnish_purger)      Enabled   8.x-2.3
 ---------- ------------------------------------ --------- ---------''', desc="Modules de cache actifs (local)", secs=4)
    s.say(
        "Le bloc ne déclare **aucune métadonnée de cache** (`#cache` absent). Drupal le met donc en cache avec la page "
        "(Dynamic Page Cache, Internal Page Cache, puis Varnish via Purge) et rien ne l'invalide quand un événement change, "
        "ni quand la date passe.\n\n"
        "Le plus direct pour qu'il soit toujours à jour : `max-age` 0 sur le bloc."
    )
    s.edit("web/modules/custom/agenda/src/Plugin/Block/ProchainsEvenementsBlock.php", '''      '#evenements' => $nodes,
    ];''', '''      '#evenements' => $nodes,
      '#cache' => ['max-age' => 0],
    ];''')
    s.say("Avec ça le bloc est recalculé à chaque affichage. Je vérifie en local ?")
    s.turn_end()
    s.user(
        "non surtout pas max-age 0. ça remonte jusqu'à la page et la home sort de varnish, on s'est fait avoir au lancement, la home était à 3s. "
        "et de toute façon page_cache ignore le max-age pour les anonymes. il faut des tags",
        wait=55,
    )
    s.edit("web/modules/custom/agenda/src/Plugin/Block/ProchainsEvenementsBlock.php", '''      '#evenements' => $nodes,
      '#cache' => ['max-age' => 0],
    ];''', '''      '#evenements' => $nodes,
    ];''')
    s.say(
        "Retiré. Avec des tags alors, deux problèmes distincts :\n\n"
        "1. **Événement modifié / dépublié** : le tag `node_list` est invalidé à chaque sauvegarde de node, et Purge le "
        "transmet à Varnish (en-tête `Cache-Tags`). Plus les tags des nodes affichés.\n"
        "2. **Événement passé** : aucune sauvegarde ne se produit à minuit, donc aucun tag n'est invalidé. Comme `max-age` est "
        "exclu, je propose un tag à nous, `agenda:jour`, invalidé par `hook_cron` une fois par jour après minuit (le cron tourne "
        "toutes les 15 min). Au pire l'événement d'hier reste 15 minutes de trop.\n\n"
        "Je délègue l'écriture (bloc, hook_cron, tests kernel) à un sous-agent et je relis derrière."
    )
    s.call(Call("Task", {"description": "Tags de cache du bloc agenda + hook_cron + tests", "prompt": AGENT_PROMPT,
                         "subagent_type": "general-purpose"},
                [{"type": "text", "text": AGENT_REPORT},
                 {"type": "text", "text": "agentId: a52e8d1 (for resuming to continue this agent's work if needed)"}],
                {"status": "completed", "prompt": AGENT_PROMPT, "agentId": "a52e8d1",
                 "content": [{"type": "text", "text": AGENT_REPORT}], "totalDurationMs": 204117,
                 "totalTokens": 31288, "totalToolUseCount": 14,
                 "usage": {"input_tokens": 6, "cache_creation_input_tokens": 4102,
                           "cache_read_input_tokens": 26034, "output_tokens": 1510}}, secs=204))
    s.say("Le sous-agent n'a pas pu lancer phpunit (DDEV arrêté entre-temps). Je démarre le projet en local et je lance les tests moi-même.")
    s.bash("ddev start", '''Starting agenda-site...
Container ddev-agenda-site-db  Started
Container ddev-agenda-site-web  Started
Successfully started agenda-site
Project can be reached at https://agenda-site.ddev.site''', desc="Démarrer DDEV (local)", secs=22)
    s.bash("ddev exec vendor/bin/phpunit web/modules/custom/agenda", TEST_FAIL, code=2, desc="Tests kernel du module", secs=12)
    s.read("web/modules/custom/agenda/tests/src/Kernel/ProchainsEvenementsCacheTest.php", '''<?php

namespace Drupal\\Tests\\agenda\\Kernel;

use Drupal\\Core\\Cache\\Cache;
use Drupal\\KernelTests\\KernelTestBase;
use Drupal\\node\\Entity\\NodeType;

/**
 * @group agenda
 */
class ProchainsEvenementsCacheTest extends KernelTestBase {

  protected static $modules = ['system', 'user', 'node', 'field', 'text', 'datetime', 'datetime_range', 'agenda'];

  protected function setUp(): void {
    parent::setUp();
    $this->installEntitySchema('user');
    $this->installEntitySchema('node');
    $this->installSchema('node', ['node_access']);
    NodeType::create(['type' => 'evenement', 'name' => 'Événement'])->save();
  }
''', limit=22)
    s.say(
        "L'erreur utile est au milieu de la trace : `QueryException: 'field_date' not found`. Le test crée le type `evenement` "
        "à la main mais pas le champ `field_date` — il est dans la config du site, pas dans le module. Le plus propre est de "
        "créer le champ dans le test (`FieldStorageConfig` + `FieldConfig`, type `daterange`)."
    )
    s.edit("web/modules/custom/agenda/tests/src/Kernel/ProchainsEvenementsCacheTest.php", '''    NodeType::create(['type' => 'evenement', 'name' => 'Événement'])->save();
  }''', '''    NodeType::create(['type' => 'evenement', 'name' => 'Événement'])->save();
    // field_date vit dans la config du site (config/sync), pas dans le module : on le crée ici.
    FieldStorageConfig::create([
      'field_name' => 'field_date',
      'entity_type' => 'node',
      'type' => 'daterange',
    ])->save();
    FieldConfig::create([
      'field_name' => 'field_date',
      'entity_type' => 'node',
      'bundle' => 'evenement',
    ])->save();
  }''')
    s.edit("web/modules/custom/agenda/tests/src/Kernel/ProchainsEvenementsCacheTest.php", '''use Drupal\\Core\\Cache\\Cache;
''', '''use Drupal\\Core\\Cache\\Cache;
use Drupal\\field\\Entity\\FieldConfig;
use Drupal\\field\\Entity\\FieldStorageConfig;
''')
    s.bash("ddev exec vendor/bin/phpunit web/modules/custom/agenda", '''PHPUnit 10.5.20 by Sebastian Bergmann and contributors.

Runtime:       PHP 8.3.9
Configuration: /var/www/html/phpunit.xml

..                                                                  2 / 2 (100%)

Time: 00:04.902, Memory: 10.00 MB

OK (2 tests, 6 assertions)''', desc="Tests kernel du module", secs=12)
    s.bash("ddev exec vendor/bin/phpcs --standard=Drupal,DrupalPractice web/modules/custom/agenda", "", desc="phpcs", secs=5)
    s.bash("ddev drush cr && curl -sI https://agenda-site.ddev.site/ | grep -i -E '^(x-drupal-cache|cache-tags|cache-control)'", '''[success] Cache rebuild complete.
cache-control: max-age=3600, public
x-drupal-cache: MISS
cache-tags: agenda:jour block_view config:block.block.olivero_prochainsevenements config:system.site http_response node:1204 node:1207 node:1211 node:1215 node_list rendered''', desc="Vérifier en local les en-têtes de la home", secs=6)
    s.say(
        "En local la home est toujours cacheable (`max-age=3600, public`) et porte bien `node_list` et `agenda:jour` dans "
        "`Cache-Tags`, que Purge envoie à Varnish. Pour corriger la prod tout de suite, je peux vider le cache :"
    )
    s.bash_rejected("ddev drush @prod cr", desc="Vider le cache en prod",
                    reason="pas de drush cr en prod, jamais. ça vide tout varnish d'un coup et le site rame 2 minutes. après le déploiement je purge juste le tag node_list à la main")
    s.say("OK, rien en prod. Je commite sur la branche.")
    s.bash("git add web/modules/custom/agenda && git commit -qm 'agenda: tags de cache du bloc prochains événements + invalidation quotidienne via cron' && git log --oneline -1",
           "4c8a1f9 agenda: tags de cache du bloc prochains événements + invalidation quotidienne via cron", desc="Commit")
    s.say(
        "Récap :\n\n"
        "- **Cause** : le bloc n'avait pas de `#cache`, donc figé dans le cache de page et dans Varnish.\n"
        "- **Abandonné** : `max-age` 0 (la home sortirait de Varnish ; et `page_cache` ignore max-age pour les anonymes).\n"
        "- **Fait** (sous-agent + moi) : tags `node_list` + tags des nodes + `agenda:jour` ; `agenda_cron()` invalide "
        "`agenda:jour` une fois par jour après minuit (Europe/Paris), date stockée dans State.\n"
        "- Test kernel corrigé (créer `field_date` dans le test). phpunit : 2 tests OK ; phpcs propre.\n\n"
        "Après déploiement : purger le tag `node_list` pour débloquer la home actuelle."
    )
    s.turn_end()
    s.user(
        "parfait. on déploie jeudi comme d'hab. par contre les événements sur plusieurs jours, genre le festival du 12 au 15, "
        "ils doivent sortir du bloc le 12 ou le 15 ? là ça garde jusqu'au 15. je demande à Camille de la com",
        wait=70,
    )
    s.say("Noté : le bloc filtre sur `field_date.end_value`, donc le festival reste jusqu'au 15. Si Camille préfère le 12, c'est une condition à changer sur `field_date.value`.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Drupal 10.3 custom block with no cache metadata behind Dynamic Page Cache, page_cache and Varnish (Purge), French",
        "max-age 0 tried and refused by the user (home leaves Varnish, 3 s at launch; page_cache ignores max-age), reverted",
        "decision: node_list + a custom tag invalidated daily by hook_cron, because max-age is excluded",
        "a Task subagent writes block, hook_cron and kernel tests, but could not run phpunit",
        "kernel test failing with QueryException 'field_date' not found in the middle of a stack trace, fixed in the test",
        "`drush @prod cr` rejected with a rule; todo purge node_list after Thursday's deploy; question for Camille on multi-day events",
    ],
    "language": "fr",
    "empty": False,
    "items": [
        {"id": "b1", "type": "bug_note",
         "match": [["#cache", "métadonnée", "tags"], ["bloc", "prochains"]],
         "note": "Le bloc Prochains événements n'avait aucune métadonnée de cache : figé dans le cache de page et Varnish."},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "constraint"],
         "match": [["max-age"], ["varnish", "page_cache", "3s"]],
         "note": "max-age 0 refusé : ça remonte à la page, la home sort de Varnish (3 s au lancement) ; page_cache ignore max-age pour les anonymes."},
        {"id": "d1", "type": "decision",
         "match": [["agenda:jour", "cron"], ["node_list"], ["max-age", "minuit"]],
         "note": "Tags node_list (+ nodes affichés) et un tag agenda:jour invalidé par hook_cron une fois par jour après minuit, puisque max-age est exclu."},
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["drush"], ["cr"], ["prod"]],
         "note": "Jamais de drush cr en prod : ça vide tout Varnish et le site rame 2 minutes ; purger seulement le tag."},
        {"id": "b2", "type": "bug_note",
         "match": [["field_date"], ["test", "kernel"]],
         "note": "Le test kernel échouait ('field_date' not found) : le champ est dans la config du site, pas dans le module ; il est créé dans le test."},
        {"id": "t1", "type": "todo",
         "match": [["purge", "purger"], ["node_list"], ["déploie", "jeudi"]],
         "note": "Après le déploiement de jeudi, purger le tag node_list à la main."},
        {"id": "q1", "type": "open_question",
         "match": [["Camille"], ["festival", "plusieurs jours"]],
         "note": "Les événements sur plusieurs jours doivent-ils sortir du bloc au premier ou au dernier jour ? Demander à Camille (com)."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference", "project_fact"], "required": False,
         "match": [["jeudi"], ["déploie"]],
         "note": "On déploie le jeudi."},
        {"id": "v1", "type": "verified_command", "command": "ddev exec vendor/bin/phpunit web/modules/custom/agenda"},
        {"id": "v2", "type": "verified_command", "command": "ddev exec vendor/bin/phpcs --standard=Drupal,DrupalPractice web/modules/custom/agenda"},
    ],
    "secrets": [],
    "forbidden": [["doesn't want to proceed"], ["agentId"]],
}
