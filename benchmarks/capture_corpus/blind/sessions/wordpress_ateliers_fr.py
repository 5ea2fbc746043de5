# ruff: noqa: E501  (verbatim command output and file contents)
"""WordPress plugin (PHP 7.4): workshop overbooking race, atomic UPDATE, nonce; wp-env without Docker (French)."""

from make_sessions import Session

AJAX = '''<?php
/**
 * Inscription à une session d'atelier (AJAX).
 */

defined( 'ABSPATH' ) || exit;

add_action( 'wp_ajax_ra_book', 'ra_ajax_book' );
add_action( 'wp_ajax_nopriv_ra_book', 'ra_ajax_book' );

function ra_ajax_book() {
	$session_id = isset( $_POST['session_id'] ) ? (int) $_POST['session_id'] : 0;
	$email      = isset( $_POST['email'] ) ? sanitize_email( wp_unslash( $_POST['email'] ) ) : '';

	$capacity = (int) get_post_meta( $session_id, 'ra_capacity', true );
	$booked   = count( get_posts( array(
		'post_type'   => 'ra_booking',
		'meta_key'    => 'ra_session_id',
		'meta_value'  => $session_id,
		'numberposts' => -1,
		'fields'      => 'ids',
	) ) );

	if ( $booked >= $capacity ) {
		wp_send_json_error( array( 'message' => __( 'Session complète.', 'ra' ) ), 409 );
	}

	ra_send_confirmation( $email, $session_id );
	$booking_id = wp_insert_post( array(
		'post_type'   => 'ra_booking',
		'post_status' => 'publish',
		'post_title'  => $email,
		'meta_input'  => array( 'ra_session_id' => $session_id ),
	) );

	wp_send_json_success( array( 'booking_id' => $booking_id ) );
}
'''

TEST = '''<?php

class Test_Booking extends WP_Ajax_UnitTestCase {

	public function test_overbooking_refused() {
		$session = self::factory()->post->create( array( 'post_type' => 'ra_session' ) );
		update_post_meta( $session, 'ra_capacity', 12 );
		ra_install_schema();
		ra_sync_counter( $session );

		$ok = 0;
		for ( $i = 0; $i < 13; $i++ ) {
			$_POST = array( 'session_id' => $session, 'email' => "p$i@example.org", '_ajax_nonce' => wp_create_nonce( 'ra_book' ) );
			$ok   += ra_try_book( $session ) ? 1 : 0;
		}
		$this->assertSame( 12, $ok );
	}

	public function test_nonce_required() {
		$_POST = array( 'session_id' => 1, 'email' => 'x@example.org' );
		$this->expectException( 'WPAjaxDieStopException' );
		$this->_handleAjax( 'ra_book' );
	}
}
'''


def build() -> Session:
    s = Session("wordpress-ateliers-fr", cwd="/home/mathilde/sites/atelier-poterie/wp-content/plugins/reservations-ateliers",
                branch="fix/surreservation", start="2026-03-11T09:40:02.476Z", version="2.1.46", slug="atelier-complet-loutre")
    s.user(
        "Salut ! Samedi on a eu 14 inscrits pour un atelier de 12 places, la cliente est pas contente. "
        "Le bouton « Réserver » passe par ra_ajax_book dans includes/ajax-booking.php. Tu peux "
        "regarder ?\n\nAttention : l'hébergeur de la cliente est bloqué en PHP 7.4 (mutualisé), donc "
        "pas de syntaxe PHP 8. Et on garde le préfixe ra_ partout comme le reste du plugin.",
        wait=6,
    )
    s.call(s.read_call("includes/ajax-booking.php", AJAX))
    s.say(
        "Deux problèmes dans `ra_ajax_book` :\n\n"
        "1. **Course entre le comptage et l'insertion** : on compte les réservations, puis on insère. "
        "Deux clics simultanés lisent tous les deux 11 et passent tous les deux. Samedi, 14 pour 12, "
        "c'est typique d'une ouverture d'inscriptions avec du monde en même temps.\n"
        "2. **Pas de nonce** : `check_ajax_referer` manque, et comme l'action est aussi en `nopriv`, "
        "n'importe quel site peut poster des inscriptions.\n\n"
        "Pour la course, le plus simple est un verrou autour du comptage :"
    )
    s.edit_rejected("includes/ajax-booking.php", '''	$capacity = (int) get_post_meta( $session_id, 'ra_capacity', true );''', '''	global $wpdb;
	$wpdb->query( "LOCK TABLES {$wpdb->posts} WRITE, {$wpdb->postmeta} WRITE" );
	$capacity = (int) get_post_meta( $session_id, 'ra_capacity', true );''',
                    reason="LOCK TABLES sur un mutualisé, non. l'utilisateur MySQL n'a même pas le droit LOCK chez eux, et si ça plante entre les deux on bloque tout le site")
    s.say(
        "D'accord, pas de verrou. Alors un compteur et une mise à jour atomique : une table "
        "`{prefix}ra_seats` avec `booked` et `capacity` par session, et la réservation fait\n\n"
        "`UPDATE … SET booked = booked + 1 WHERE session_id = %d AND booked < capacity`\n\n"
        "MySQL exécute cette ligne de façon atomique : si elle touche 1 ligne, la place est à nous, "
        "si elle en touche 0, c'est complet. Pas besoin de droit LOCK, rien ne reste bloqué si "
        "PHP meurt en route. La table se crée avec `dbDelta` à la mise à jour du plugin (option "
        "`ra_db_version`)."
    )
    s.write("includes/seats.php", '''<?php
/**
 * Compteur de places par session : la réservation est un UPDATE atomique.
 */

defined( 'ABSPATH' ) || exit;

const RA_DB_VERSION = '3';

function ra_install_schema() {
	global $wpdb;
	require_once ABSPATH . 'wp-admin/includes/upgrade.php';
	$table = $wpdb->prefix . 'ra_seats';
	dbDelta( "CREATE TABLE {$table} (
		session_id bigint(20) unsigned NOT NULL,
		capacity int(10) unsigned NOT NULL,
		booked int(10) unsigned NOT NULL DEFAULT 0,
		PRIMARY KEY  (session_id)
	) {$wpdb->get_charset_collate()};" );
	update_option( 'ra_db_version', RA_DB_VERSION );
}

function ra_maybe_upgrade() {
	if ( get_option( 'ra_db_version' ) !== RA_DB_VERSION ) {
		ra_install_schema();
	}
}
add_action( 'plugins_loaded', 'ra_maybe_upgrade' );

function ra_sync_counter( $session_id ) {
	global $wpdb;
	$capacity = (int) get_post_meta( $session_id, 'ra_capacity', true );
	$booked   = (int) $wpdb->get_var( $wpdb->prepare(
		"SELECT COUNT(*) FROM {$wpdb->postmeta} WHERE meta_key = 'ra_session_id' AND meta_value = %d",
		$session_id
	) );
	$wpdb->replace( $wpdb->prefix . 'ra_seats', array( 'session_id' => $session_id, 'capacity' => $capacity, 'booked' => $booked ) );
}

/**
 * Prend une place si il en reste une. Vrai si la place est prise.
 */
function ra_try_book( $session_id ) {
	global $wpdb;
	$updated = $wpdb->query( $wpdb->prepare(
		"UPDATE {$wpdb->prefix}ra_seats SET booked = booked + 1 WHERE session_id = %d AND booked < capacity",
		$session_id
	) );
	return 1 === $updated;
}
''')
    s.edit("includes/ajax-booking.php", '''function ra_ajax_book() {
	$session_id''', '''function ra_ajax_book() {
	check_ajax_referer( 'ra_book' );

	$session_id''')
    s.edit("includes/ajax-booking.php", '''	$capacity = (int) get_post_meta( $session_id, 'ra_capacity', true );
	$booked   = count( get_posts( array(
		'post_type'   => 'ra_booking',
		'meta_key'    => 'ra_session_id',
		'meta_value'  => $session_id,
		'numberposts' => -1,
		'fields'      => 'ids',
	) ) );

	if ( $booked >= $capacity ) {''', '''	if ( ! ra_try_book( $session_id ) ) {''')
    s.write("tests/test-booking.php", TEST)
    s.bash("npx wp-env run tests-cli --env-cwd=wp-content/plugins/reservations-ateliers vendor/bin/phpunit", '''✖ Error while running docker compose command.
Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?''', code=1, desc="Tests via wp-env", secs=6)
    s.bash("ls bin/ && cat phpunit.xml.dist | head -5", '''install-wp-tests.sh
<?xml version="1.0"?>
<phpunit bootstrap="tests/bootstrap.php" backupGlobals="false" colors="true">
	<testsuites>
		<testsuite name="ra">''', desc="Autre moyen de lancer les tests")
    s.say("Docker ne tourne pas ici. Le plugin a aussi le `install-wp-tests.sh` classique, qui installe la suite de tests WordPress sur le MySQL local :")
    s.bash("bin/install-wp-tests.sh wp_tests root '' 127.0.0.1 6.4 2>&1 | tail -2", '''+ svn export --quiet --ignore-externals https://develop.svn.wordpress.org/tags/6.4/tests/phpunit/data/ /tmp/wordpress-tests-lib/data
+ mysqladmin create wp_tests --user=root --password= --host=127.0.0.1 --protocol=tcp''', desc="Installer la suite de tests WP", secs=40)
    s.bash("vendor/bin/phpunit --filter Test_Booking 2>&1 | tail -12", '''Running as single site... To run multisite, use -c tests/phpunit/multisite.xml
PHPUnit 9.6.19 by Sebastian Bergmann and contributors.

E.                                                                  2 / 2 (100%)

There was 1 error:

1) Test_Booking::test_overbooking_refused
Error: Call to undefined function ra_install_schema()

/home/mathilde/sites/atelier-poterie/wp-content/plugins/reservations-ateliers/tests/test-booking.php:8

ERRORS!
Tests: 2, Assertions: 1, Errors: 1.''', desc="Tests de réservation", secs=12)
    s.call(s.read_call("reservations-ateliers.php", '''<?php
/**
 * Plugin Name: Réservations Ateliers
 * Version:     1.6.2
 * Requires PHP: 7.4
 */

defined( 'ABSPATH' ) || exit;

require_once __DIR__ . '/includes/post-types.php';
require_once __DIR__ . '/includes/ajax-booking.php';
require_once __DIR__ . '/includes/emails.php';
require_once __DIR__ . '/includes/admin.php';
'''))
    s.say(
        "Le nonce passe, mais `ra_install_schema()` est inconnue : le fichier principal charge "
        "chaque include à la main et `includes/seats.php` n'y est pas. En prod, ça aurait été une "
        "erreur fatale à chaque clic sur « Réserver », puisque `ra_ajax_book` appelle maintenant "
        "`ra_try_book`. J'ajoute le `require_once` (avant `ajax-booking.php`)."
    )
    s.edit("reservations-ateliers.php", """require_once __DIR__ . '/includes/post-types.php';
require_once __DIR__ . '/includes/ajax-booking.php';""", """require_once __DIR__ . '/includes/post-types.php';
require_once __DIR__ . '/includes/seats.php';
require_once __DIR__ . '/includes/ajax-booking.php';""")
    s.bash("vendor/bin/phpunit --filter Test_Booking", '''Installing...
Running as single site... To run multisite, use -c tests/phpunit/multisite.xml
PHPUnit 9.6.19 by Sebastian Bergmann and contributors.

..                                                                  2 / 2 (100%)

Time: 00:01.204, Memory: 38.50 MB

OK (2 tests, 2 assertions)''', desc="Tests de réservation", secs=10)
    s.say("Les compteurs des sessions déjà publiées doivent être remplis une fois à la mise à jour. Une question avant :")
    q = "Faut-il recalculer le compteur de places pour toutes les sessions existantes ?"
    s.ask(
        [{"question": q, "header": "Compteurs",
          "options": [("Toutes", "Recalcul pour toutes les sessions"),
                      ("Futures seulement", "Seulement les sessions à venir")]}],
        {q: "seulement les futures. les anciennes on n'y touche pas du tout, la compta exporte les inscriptions passées tous les mois et tout changement là-dessus les embrouille"},
    )
    s.edit("includes/seats.php", '''function ra_maybe_upgrade() {
	if ( get_option( 'ra_db_version' ) !== RA_DB_VERSION ) {
		ra_install_schema();
	}
}''', '''function ra_maybe_upgrade() {
	if ( get_option( 'ra_db_version' ) !== RA_DB_VERSION ) {
		ra_install_schema();
		// Seulement les sessions à venir : les passées servent aux exports de la compta.
		$future = get_posts( array(
			'post_type'   => 'ra_session',
			'numberposts' => -1,
			'fields'      => 'ids',
			'meta_key'    => 'ra_date',
			'meta_value'  => current_time( 'Y-m-d' ),
			'meta_compare' => '>=',
		) );
		array_map( 'ra_sync_counter', $future );
	}
}''')
    s.bash("vendor/bin/phpcs --standard=phpcs.xml.dist includes tests", "", desc="WPCS", secs=7)
    s.bash("vendor/bin/phpunit 2>&1 | tail -3", '''Time: 00:03.877, Memory: 44.00 MB

OK (23 tests, 61 assertions)''', desc="Toute la suite", secs=16)
    s.say(
        "C'est bon :\n"
        "- réservation = `UPDATE … WHERE booked < capacity` sur `{prefix}ra_seats` (atomique, sans "
        "LOCK), création de la table via `dbDelta` à la version 3 ;\n"
        "- `check_ajax_referer( 'ra_book' )` ajouté ;\n"
        "- recalcul des compteurs uniquement pour les sessions à venir ;\n"
        "- PHPCS propre, 23 tests verts, rien de PHP 8 (pas de `match`, pas d'arguments nommés).\n\n"
        "Attention : `ra_send_confirmation` part toujours *avant* `wp_insert_post`. Si l'insertion "
        "échoue, la personne reçoit une confirmation sans inscription. Je ne l'ai pas déplacé, ce "
        "n'était pas la demande. Et le JS du bouton doit envoyer `_ajax_nonce` (via "
        "`wp_localize_script`), sinon toutes les réservations seront refusées."
    )
    s.turn_end()
    s.user(
        "ah oui le nonce côté JS, je m'en occupe cet aprem avant de déployer. l'e-mail on verra "
        "plus tard. et faudra demander à Claire si la cliente veut une liste d'attente quand c'est complet",
        wait=120,
    )
    s.say("Noté. Je ne déploie rien, à toi pour le JS.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "WordPress plugin (PHP 7.4, dbDelta, WP_Ajax_UnitTestCase, WPCS), French",
        "two rules in the first prompt (PHP 7.4 on shared hosting; ra_ prefix)",
        "an Edit rejected with the user's reason (no LOCK TABLES on shared hosting), then a conditional UPDATE with its why",
        "`wp-env` failing without Docker, install-wp-tests.sh instead",
        "a test error behind `| tail` (exit 0) caused by the test itself, a muddled explanation, then passing",
        "AskUserQuestion answered in free text with a rule and its reason (past sessions untouched: accounting exports)",
        "todo the user takes (nonce in JS before deploying), a deferred item (e-mail before insert) and a question for a colleague (waiting list)",
    ],
    "language": "fr",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "project_fact"],
         "match": [["PHP 7.4", "7.4"], ["PHP 8", "mutualisé", "hébergeur"]],
         "note": "L'hébergeur de la cliente est bloqué en PHP 7.4 (mutualisé) : pas de syntaxe PHP 8."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"], "required": False,
         "match": [["ra_"], ["préfixe", "prefix"]],
         "note": "Préfixe ra_ pour toutes les fonctions et options, comme le reste du plugin."},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "constraint", "preference"],
         "match": [["LOCK TABLES", "LOCK"], ["mutualisé", "droit"]],
         "note": "LOCK TABLES refusé : sur le mutualisé l'utilisateur MySQL n'a pas le droit LOCK, et un plantage bloquerait tout le site."},
        {"id": "d1", "type": "decision",
         "match": [["booked < capacity", "ra_seats", "atomique"], ["LOCK", "course", "atomique"]],
         "note": "La réservation prend une place par un UPDATE atomique sur ra_seats (booked < capacity), sans verrou, pour éviter la course comptage/insertion."},
        {"id": "b1", "type": "bug_note",
         "match": [["14"], ["12"], ["course", "simultan", "surréservation"]],
         "note": "14 inscrits pour 12 places : ra_ajax_book comptait puis insérait, deux clics simultanés passaient tous les deux."},
        {"id": "b2", "type": "bug_note",
         "match": [["check_ajax_referer", "nonce"], ["nopriv", "ra_book"]],
         "note": "ra_ajax_book (aussi en nopriv) ne vérifiait pas de nonce ; check_ajax_referer('ra_book') ajouté."},
        {"id": "c3", "type": "constraint", "types": ["constraint", "decision", "preference"],
         "match": [["compta"], ["futures", "anciennes", "passées"]],
         "note": "Ne jamais toucher aux inscriptions des sessions passées : la compta les exporte tous les mois ; recalcul seulement pour les sessions futures."},
        {"id": "t1", "type": "todo",
         "match": [["_ajax_nonce", "nonce"], ["JS", "wp_localize_script"]],
         "note": "Le JS du bouton doit envoyer _ajax_nonce ; Mathilde le fait cet après-midi avant de déployer."},
        {"id": "t2", "type": "todo", "types": ["todo", "bug_note"],
         "match": [["ra_send_confirmation", "e-mail", "confirmation"], ["wp_insert_post", "avant"]],
         "note": "La confirmation part avant wp_insert_post : une insertion ratée envoie une confirmation sans inscription ; à voir plus tard."},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo"],
         "match": [["Claire"], ["liste d'attente"]],
         "note": "Demander à Claire si la cliente veut une liste d'attente quand une session est complète."},
        {"id": "v1", "type": "verified_command", "command": "vendor/bin/phpunit --filter Test_Booking"},
        {"id": "v2", "type": "verified_command", "command": "vendor/bin/phpcs --standard=phpcs.xml.dist includes tests"},
        {"id": "v3", "type": "verified_command", "command": "vendor/bin/phpunit"},
        {"id": "v4", "type": "verified_command", "required": False, "command": "bin/install-wp-tests.sh wp_tests root '' 127.0.0.1 6.4"},
    ],
    "secrets": [],
    "forbidden": [["doesn't want to proceed"], ["User has answered"]],
}
