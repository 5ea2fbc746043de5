# ruff: noqa: E501  (verbatim command output and file contents)
"""Bevy 0.14: fast projectiles tunnelling through thin walls; FixedUpdate tried and dropped, swept ray vs AABB by a Task subagent; an interrupted `cargo run` (French)."""

from make_sessions import Call, Session

PROJECTILE = '''use bevy::prelude::*;

use crate::physics::{Aabb, Wall};

#[derive(Component)]
pub struct Projectile {
    pub velocity: Vec2,
    pub damage: u32,
}

pub fn move_projectiles(time: Res<Time>, mut q: Query<(&Projectile, &mut Transform)>) {
    for (p, mut t) in &mut q {
        t.translation += (p.velocity * time.delta_seconds()).extend(0.0);
    }
}

pub fn hit_walls(
    mut commands: Commands,
    projectiles: Query<(Entity, &Transform), With<Projectile>>,
    walls: Query<&Aabb, With<Wall>>,
) {
    for (e, t) in &projectiles {
        if walls.iter().any(|w| w.contains(t.translation.truncate())) {
            commands.entity(e).despawn();
        }
    }
}
'''

PLUGIN = '''pub struct CombatPlugin;

impl Plugin for CombatPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Update, (move_projectiles, hit_walls).chain());
    }
}
'''

AGENT_PROMPT = '''Dans /home/camille/jeux/ferraille (Bevy 0.14, pas de crate physique, on n'en ajoute pas) :

1. Dans src/physics/aabb.rs, ajoute `pub fn segment_hit(&self, from: Vec2, to: Vec2) -> Option<f32>` : méthode des slabs, renvoie la fraction t in [0, 1] du premier contact du segment avec la boîte, None sinon. Gère les segments parallèles à un axe (division par zéro).
2. Tests unitaires dans le même fichier : segment qui traverse, qui s'arrête avant, parallèle à l'axe, qui part de l'intérieur.
3. Lance `cargo test --lib physics::aabb` et rapporte le résultat. Ne touche pas à src/combat.'''

AGENT_REPORT = '''Ajouté `Aabb::segment_hit` (méthode des slabs) dans src/physics/aabb.rs :
- composante de direction nulle : le segment ne touche que s'il est déjà entre les bornes sur cet axe (pas de division par zéro) ;
- segment qui part de l'intérieur : renvoie Some(0.0).

5 tests ajoutés (traverse, avant le mur, parallèle à x, parallèle à y, départ à l'intérieur). `cargo test --lib physics::aabb` : 5 passed.

Remarque en passant : dans src/combat/enemy.rs, `hit_enemies` ne regarde pas `Team`, donc les projectiles ennemis touchent aussi les autres ennemis. Je n'y ai pas touché.'''


def build() -> Session:
    s = Session("bevy-tunnelling-subagent-fr", cwd="/home/camille/jeux/ferraille", branch="fix/balles-traversent",
                start="2026-02-25T16:05:12.440Z", version="2.1.47", slug="swept-bullet-lynx")
    s.user(
        "quand le jeu rame (genre 25 fps sur le portable de Léa) les balles du fusil traversent les "
        "murs fins. à 144 fps jamais. tu peux regarder ? rappel : pas de crate physique, on a testé "
        "avian l'an dernier et ça doublait le temps de compile",
        wait=6,
    )
    s.call(s.read_call("src/combat/projectile.rs", PROJECTILE), s.read_call("src/combat/mod.rs", PLUGIN))
    s.grep("velocity: Vec2::", content='''src/combat/weapons.rs:22:        velocity: Vec2::from_angle(angle) * 900.0,
src/combat/weapons.rs:41:        velocity: Vec2::from_angle(angle) * 350.0,''')
    s.grep("Wall", content='''src/level/spawn.rs:58:    commands.spawn((Wall, Aabb::from_center_size(pos, Vec2::new(8.0, 64.0))));''')
    s.say(
        "C'est du *tunnelling* : `hit_walls` ne teste que la position **après** le déplacement. À "
        "900 px/s et 25 fps, une balle avance de 36 px par frame, les murs fins font 8 px : elle peut "
        "se trouver avant le mur à une frame et derrière à la suivante. J'écris d'abord un test qui "
        "le reproduit avec un pas de temps fixe de 40 ms."
    )
    s.write("tests/tunnelling.rs", '''use bevy::prelude::*;
use ferraille::test_support::{spawn_bullet, spawn_wall, step_app};

#[test]
fn bullet_does_not_cross_thin_wall() {
    let mut app = ferraille::test_support::headless_app();
    spawn_wall(&mut app, Vec2::new(100.0, 0.0), Vec2::new(8.0, 64.0));
    spawn_bullet(&mut app, Vec2::ZERO, Vec2::new(900.0, 0.0));
    for _ in 0..10 {
        step_app(&mut app, std::time::Duration::from_millis(40));
    }
    let left = app.world_mut().query::<&ferraille::combat::Projectile>().iter(app.world()).count();
    assert_eq!(left, 0, "bullet crossed the wall");
}
''')
    s.bash("cargo test --test tunnelling 2>&1 | tail -8", '''running 1 test
test bullet_does_not_cross_thin_wall ... FAILED

thread 'bullet_does_not_cross_thin_wall' panicked at tests/tunnelling.rs:13:5:
assertion `left == right` failed: bullet crossed the wall
  left: 1
 right: 0

test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.21s''', desc="Test de reproduction", secs=48)
    s.edit("src/combat/mod.rs", '''        app.add_systems(Update, (move_projectiles, hit_walls).chain());''', '''        app.insert_resource(Time::<Fixed>::from_hz(64.0))
            .add_systems(FixedUpdate, (move_projectiles, hit_walls).chain());''')
    s.bash("cargo test --test tunnelling 2>&1 | tail -5", '''thread 'bullet_does_not_cross_thin_wall' panicked at tests/tunnelling.rs:13:5:
assertion `left == right` failed: bullet crossed the wall
  left: 1
 right: 0

test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.19s''', desc="Test de reproduction", secs=30)
    s.edit("src/combat/mod.rs", '''        app.insert_resource(Time::<Fixed>::from_hz(64.0))
            .add_systems(FixedUpdate, (move_projectiles, hit_walls).chain());''', '''        app.add_systems(Update, (move_projectiles, hit_walls).chain());''')
    s.say(
        "Je passe au test balayé : au lieu de regarder où la balle arrive, on teste le segment "
        "parcouru pendant la frame contre chaque mur (rayon contre AABB, méthode des slabs). Un "
        "sous-agent écrit `Aabb::segment_hit` et ses tests pendant que je prépare le système."
    )
    s.call(Call("Task", {"description": "Aabb::segment_hit + tests", "prompt": AGENT_PROMPT, "subagent_type": "general-purpose"},
                [{"type": "text", "text": AGENT_REPORT},
                 {"type": "text", "text": "agentId: a3f91c0 (for resuming to continue this agent's work if needed)"}],
                {"status": "completed", "prompt": AGENT_PROMPT, "agentId": "a3f91c0",
                 "content": [{"type": "text", "text": AGENT_REPORT}], "totalDurationMs": 141230,
                 "totalTokens": 28841, "totalToolUseCount": 9,
                 "usage": {"input_tokens": 5, "cache_creation_input_tokens": 3120,
                           "cache_read_input_tokens": 24610, "output_tokens": 1106}}, secs=141))
    s.edit("src/combat/projectile.rs", '''pub fn move_projectiles(time: Res<Time>, mut q: Query<(&Projectile, &mut Transform)>) {
    for (p, mut t) in &mut q {
        t.translation += (p.velocity * time.delta_seconds()).extend(0.0);
    }
}

pub fn hit_walls(
    mut commands: Commands,
    projectiles: Query<(Entity, &Transform), With<Projectile>>,
    walls: Query<&Aabb, With<Wall>>,
) {
    for (e, t) in &projectiles {
        if walls.iter().any(|w| w.contains(t.translation.truncate())) {
            commands.entity(e).despawn();
        }
    }
}''', '''/// Déplacement et collision en un seul système : on teste le segment parcouru pendant la
/// frame (balayé), pas seulement la position d'arrivée — sinon à 25 fps une balle à 900 px/s
/// saute par-dessus un mur de 8 px.
pub fn move_projectiles(
    mut commands: Commands,
    time: Res<Time>,
    mut q: Query<(Entity, &Projectile, &mut Transform)>,
    walls: Query<&Aabb, With<Wall>>,
) {
    for (e, p, mut t) in &mut q {
        let from = t.translation.truncate();
        let to = from + p.velocity * time.delta_seconds();
        if walls.iter().any(|w| w.segment_hit(from, to).is_some()) {
            commands.entity(e).despawn();
        } else {
            t.translation = to.extend(t.translation.z);
        }
    }
}''')
    s.edit("src/combat/mod.rs", '''        app.add_systems(Update, (move_projectiles, hit_walls).chain());''', '''        app.add_systems(Update, move_projectiles);''')
    s.bash("cargo test --test tunnelling 2>&1 | tail -3", '''test bullet_does_not_cross_thin_wall ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.20s''', desc="Test de reproduction", secs=35)
    s.say("Le test passe. Je vérifie en jeu avec le limiteur de fps :")
    s.call(s.rejected_call("Bash", {"command": "cargo run --release --features dev -- --fps-cap 25", "description": "Lancer le jeu à 25 fps"}, secs=40.0))
    s.interrupt(for_tool=True)
    s.user("lance pas le jeu depuis ici, ça m'ouvre une fenêtre plein écran sur le 2e écran en plein call. je testerai moi-même ce soir à 25 fps", wait=9)
    s.say("Compris, je ne lance plus le jeu. Je finis avec les tests et clippy.")
    s.bash("cargo test && cargo clippy --all-targets -- -D warnings", '''    Finished `test` profile [unoptimized + debuginfo] target(s) in 41.37s
     Running unittests src/lib.rs (target/debug/deps/ferraille-5e0c1d7a2b9f3e41)

running 37 tests
.....................................
test result: ok. 37 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.52s

     Running tests/tunnelling.rs (target/debug/deps/tunnelling-9a0e4f1c6d2b7e38)

running 1 test
test bullet_does_not_cross_thin_wall ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.19s

   Doc-tests ferraille

test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s
    Checking ferraille v0.6.0 (/home/camille/jeux/ferraille)
    Finished `dev` profile [unoptimized + debuginfo] target(s) in 4.11s''', desc="Tous les tests + clippy", secs=70)
    s.say(
        "Fait :\n\n"
        "- `move_projectiles` teste le segment parcouru contre les murs (`Aabb::segment_hit`, slabs, "
        "écrit par le sous-agent avec 5 tests) et remplace `hit_walls`.\n"
        "- Le passage en `FixedUpdate` à 64 Hz n'aidait pas : 900/64 ≈ 14 px par pas, toujours plus "
        "que 8 px ; je l'ai retiré.\n"
        "- `tests/tunnelling.rs` reproduit le cas à 40 ms par frame ; tout est vert, clippy propre.\n\n"
        "Le sous-agent a remarqué que `hit_enemies` (src/combat/enemy.rs) ignore `Team` : les "
        "projectiles ennemis touchent les autres ennemis. Pas corrigé. Et une question de design : "
        "faut-il que les balles ricochent sur les murs métalliques ? Avec le segment on aurait le "
        "point d'impact pour ça."
    )
    s.turn_end()
    s.user("le friendly fire des ennemis, on verra après la démo, laisse. le ricochet demande à Léa, c'est elle qui fait le game design", wait=75)
    s.say("Je ne touche pas à `hit_enemies`. Pour le ricochet, c'est Léa qui tranche.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Rust / Bevy 0.14 2D shooter, French",
        "a rule with its reason in the first prompt (no physics crate; avian doubled compile times)",
        "a reproduction test failing behind `| tail` (tunnelling at 40 ms frames)",
        "FixedUpdate at 64 Hz tried, still failing, reverted (explained only in the wrap-up)",
        "a Task subagent writing the ray vs AABB function (only its prompt and report visible) and reporting a bug in passing",
        "`cargo run` rejected and interrupted, then a rule with its reason (don't start the game from here)",
        "a bug left for after the demo; question for a colleague (ricochets, Léa)",
    ],
    "language": "fr",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["crate physique", "avian"], ["compile"]],
         "note": "Pas de crate physique (avian, rapier) : avian doublait le temps de compile."},
        {"id": "b1", "type": "bug_note",
         "match": [["tunnelling", "traversent"], ["segment", "balayé", "segment_hit"]],
         "note": "Les balles traversaient les murs fins à bas fps (36 px par frame à 25 fps contre 8 px de mur) ; collision balayée : le segment parcouru est testé contre l'AABB."},
        {"id": "f1", "type": "failed_attempt",
         "match": [["FixedUpdate", "64 Hz"], ["14 px", "8 px", "n'aidait pas"]],
         "note": "FixedUpdate à 64 Hz ne suffisait pas (900/64 ≈ 14 px par pas, plus que 8 px) ; retiré."},
        {"id": "d1", "type": "decision",
         "match": [["segment_hit", "slabs"], ["Aabb", "AABB"]],
         "note": "Aabb::segment_hit (méthode des slabs) calcule le premier contact du segment avec la boîte ; move_projectiles fait déplacement et collision ensemble."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["lance pas le jeu", "lancer le jeu", "ne lance plus le jeu"], ["écran", "call"]],
         "note": "Ne pas lancer le jeu depuis Claude : ça ouvre une fenêtre plein écran sur le deuxième écran pendant les calls."},
        {"id": "b2", "type": "bug_note", "types": ["bug_note", "todo"],
         "match": [["hit_enemies", "friendly fire"], ["Team", "démo"]],
         "note": "hit_enemies ignore Team : les projectiles ennemis touchent les autres ennemis ; laissé pour après la démo."},
        {"id": "t1", "type": "todo",
         "match": [["ce soir"], ["25 fps"]],
         "note": "Camille teste elle-même en jeu ce soir à 25 fps."},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo"],
         "match": [["ricoch"], ["Léa"]],
         "note": "Les balles doivent-elles ricocher sur les murs métalliques ? À demander à Léa (game design)."},
        {"id": "x1", "type": "project_fact", "required": False,
         "match": [["900"], ["8 px", "murs fins"]],
         "note": "Les balles du fusil vont à 900 px/s ; les murs fins font 8 px."},
        {"id": "v1", "type": "verified_command", "command": "cargo test --test tunnelling"},
        {"id": "v2", "type": "verified_command", "command": "cargo test && cargo clippy --all-targets -- -D warnings"},
    ],
    "secrets": [],
    "forbidden": [["Request interrupted"], ["doesn't want to proceed"], ["agentId"]],
}
