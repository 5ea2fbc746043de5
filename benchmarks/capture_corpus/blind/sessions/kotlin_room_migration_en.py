# ruff: noqa: E501  (verbatim command output and file contents)
"""Android/Kotlin: a Room migration that crashes the beta on upgrade from 3.3 (English)."""

from make_sessions import Session

ENTITY = '''package com.fieldnotes.data

import androidx.room.ColumnInfo
import androidx.room.Entity
import androidx.room.PrimaryKey

@Entity(tableName = "notes")
data class NoteEntity(
    @PrimaryKey(autoGenerate = true) val id: Long = 0,
    val title: String,
    val body: String,
    @ColumnInfo(name = "created_at") val createdAt: Long,
    @ColumnInfo(name = "updated_at") val updatedAt: Long,
    @ColumnInfo(defaultValue = "0") val pinned: Boolean = false,
)
'''

MIGRATIONS = '''package com.fieldnotes.data

import androidx.room.migration.Migration
import androidx.sqlite.db.SupportSQLiteDatabase

val MIGRATION_6_7 = object : Migration(6, 7) {
    override fun migrate(db: SupportSQLiteDatabase) {
        db.execSQL("ALTER TABLE notes ADD COLUMN updated_at INTEGER NOT NULL DEFAULT 0")
        db.execSQL("UPDATE notes SET updated_at = created_at")
    }
}

val MIGRATION_7_8 = object : Migration(7, 8) {
    override fun migrate(db: SupportSQLiteDatabase) {
        db.execSQL("ALTER TABLE notes ADD COLUMN pinned INTEGER")
    }
}

val ALL_MIGRATIONS = arrayOf(MIGRATION_6_7, MIGRATION_7_8)
'''

DATABASE = '''package com.fieldnotes.data

import android.content.Context
import androidx.room.Database
import androidx.room.Room
import androidx.room.RoomDatabase

@Database(entities = [NoteEntity::class, TagEntity::class, NoteTagCrossRef::class], version = 8, exportSchema = true)
abstract class FieldNotesDatabase : RoomDatabase() {
    abstract fun notes(): NoteDao
    abstract fun tags(): TagDao

    companion object {
        fun build(context: Context): FieldNotesDatabase =
            Room.databaseBuilder(context, FieldNotesDatabase::class.java, "fieldnotes.db")
                .addMigrations(*ALL_MIGRATIONS)
                .build()
    }
}
'''

MIGRATION_TEST = '''package com.fieldnotes.data

import androidx.room.testing.MigrationTestHelper
import androidx.test.ext.junit.runners.AndroidJUnit4
import androidx.test.platform.app.InstrumentationRegistry
import org.junit.Rule
import org.junit.Test
import org.junit.runner.RunWith
import org.robolectric.annotation.Config

@RunWith(AndroidJUnit4::class)
@Config(sdk = [34])
class MigrationTest {
    @get:Rule
    val helper = MigrationTestHelper(
        InstrumentationRegistry.getInstrumentation(),
        FieldNotesDatabase::class.java,
    )

    @Test
    fun migrate6To7() {
        helper.createDatabase(DB, 6).use { db ->
            db.execSQL("INSERT INTO notes (id, title, body, created_at) VALUES (1, 'a', 'b', 1700000000)")
        }
        helper.runMigrationsAndValidate(DB, 7, true, MIGRATION_6_7)
    }

    companion object {
        private const val DB = "migration-test"
    }
}
'''

SUMMARY_CRASH = """Fatal Exception: java.lang.IllegalStateException: Migration didn't properly handle: notes(com.fieldnotes.data.NoteEntity).
 Expected:
TableInfo{name='notes', columns={pinned=Column{name='pinned', type='INTEGER', affinity='3', notNull=true, primaryKeyPosition=0, defaultValue='0'}, body=Column{name='body', type='TEXT', affinity='2', notNull=true, primaryKeyPosition=0, defaultValue='undefined'}, updated_at=Column{...}, created_at=Column{...}, id=Column{...}, title=Column{...}}, foreignKeys=[], indices=[]}
 Found:
TableInfo{name='notes', columns={pinned=Column{name='pinned', type='INTEGER', affinity='3', notNull=false, primaryKeyPosition=0, defaultValue='undefined'}, body=Column{...}, updated_at=Column{...}, created_at=Column{...}, id=Column{...}, title=Column{...}}, foreignKeys=[], indices=[]}
       at androidx.room.RoomOpenHelper.onUpgrade(RoomOpenHelper.kt:111)
       at androidx.sqlite.db.framework.FrameworkSQLiteOpenHelper$OpenHelper.onUpgrade(FrameworkSQLiteOpenHelper.kt:253)"""


def build() -> Session:
    s = Session("kotlin-room-migration-en", cwd="/Users/marek/AndroidStudioProjects/fieldnotes",
                branch="fix/room-pinned-migration", start="2026-03-16T09:41:27.305Z",
                version="2.1.52", slug="quiet-folding-heron")
    s.user(
        "3.4.0-beta1 crashes on launch for everyone upgrading from 3.3. crashlytics:\n\n```\n"
        + SUMMARY_CRASH + "\n```\n\n"
        "one hard rule before you start: no fallbackToDestructiveMigration, not even as a "
        "safety net. notes only live on the device, we have no sync backend, wiping the db "
        "means people lose everything.",
        wait=5,
    )
    s.think("Room validates the table after migrating: the entity says pinned is NOT NULL with "
            "default 0, the migration created a nullable column. Check Migrations.kt.")
    s.call(s.read_call("app/src/main/java/com/fieldnotes/data/Migrations.kt", MIGRATIONS),
           s.read_call("app/src/main/java/com/fieldnotes/data/NoteEntity.kt", ENTITY),
           s.read_call("app/src/main/java/com/fieldnotes/data/FieldNotesDatabase.kt", DATABASE))
    s.say(
        "That's the whole story in the Expected/Found diff: `NoteEntity.pinned` is a non-null "
        "`Boolean` with `defaultValue = \"0\"`, so Room expects `pinned INTEGER NOT NULL DEFAULT "
        "0`, but `MIGRATION_7_8` runs `ALTER TABLE notes ADD COLUMN pinned INTEGER` — nullable, "
        "no default. Fresh installs are fine (Room creates the table from the entity); only "
        "upgrades hit the validation and throw.\n\n"
        "Room runs the migrations and this validation in one transaction, so for these users "
        "the upgrade rolls back and the db stays at version 7 — a corrected `MIGRATION_7_8` "
        "would be enough for them. What worries me is whether anyone has a *different* v8. "
        "Checking the schema history:"
    )
    s.bash("git log --oneline -4 -- app/schemas/ && ls app/schemas/com.fieldnotes.data.FieldNotesDatabase/", """\
a71c2e9 notes: pinned non-null, default false (re-export schema 8)
4be1a07 notes: pinned flag (db v8)
9c2e3d1 notes: updated_at (db v7)
d08f4aa tags: cross ref table (db v6)
6.json
7.json
8.json""", desc="Schema history")
    s.bash("git show 4be1a07:app/src/main/java/com/fieldnotes/data/NoteEntity.kt | grep -n pinned", """\
16:    val pinned: Boolean? = null,""", desc="pinned as first shipped in v8")
    s.say(
        "There it is: `4be1a07` introduced v8 with `pinned: Boolean?` — nullable, which is "
        "exactly what `MIGRATION_7_8` creates. Then `a71c2e9` made it non-null with a default "
        "and re-exported `8.json` **without bumping the version**. Did any build between those "
        "two commits go out (internal track, alphas)? Those devices would be on a v8 that "
        "doesn't match today's v8."
    )
    s.turn_end()
    s.user(
        "yes — 3.4.0-alpha02 and alpha03 went to the internal testing track with that, ~40 "
        "people incl. the whole support team. they'll crash on beta1 too. also please don't "
        "touch the room version in libs.versions.toml, the 2.7 upgrade is its own PR with its "
        "own QA pass.",
        wait=95,
    )
    s.say(
        "Then there are two populations:\n\n"
        "- **3.3 users (v7):** the failed upgrade rolled back, so fixing `MIGRATION_7_8` in "
        "place is safe — they've never completed it.\n"
        "- **alpha users (v8, nullable `pinned`):** Room never reruns 7→8 on a v8 database, so "
        "editing that migration does nothing for them. They need a new **version 9** whose "
        "`MIGRATION_8_9` repairs the column. SQLite can't change a column's NOT NULL with "
        "`ALTER`, so it's the usual create-copy-drop-rename.\n\n"
        "Room stays on the version in `libs.versions.toml`."
    )
    s.edit("app/src/main/java/com/fieldnotes/data/Migrations.kt",
           '        db.execSQL("ALTER TABLE notes ADD COLUMN pinned INTEGER")',
           '        db.execSQL("ALTER TABLE notes ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0")')
    s.say("First I'll try letting Room generate 8→9 itself — if the auto-migration picks up the "
          "nullability change it saves us hand-written SQL.")
    s.edit("app/src/main/java/com/fieldnotes/data/FieldNotesDatabase.kt",
           '''@Database(entities = [NoteEntity::class, TagEntity::class, NoteTagCrossRef::class], version = 8, exportSchema = true)''',
           '''@Database(
    entities = [NoteEntity::class, TagEntity::class, NoteTagCrossRef::class],
    version = 9,
    exportSchema = true,
    autoMigrations = [AutoMigration(from = 8, to = 9)],
)''')
    s.edit("app/src/main/java/com/fieldnotes/data/FieldNotesDatabase.kt",
           "import androidx.room.Database",
           "import androidx.room.AutoMigration\nimport androidx.room.Database")
    s.read("app/src/test/java/com/fieldnotes/data/MigrationTest.kt", MIGRATION_TEST)
    s.edit("app/src/test/java/com/fieldnotes/data/MigrationTest.kt", '''        helper.runMigrationsAndValidate(DB, 7, true, MIGRATION_6_7)
    }
''', '''        helper.runMigrationsAndValidate(DB, 7, true, MIGRATION_6_7)
    }

    @Test
    fun migrate7To8KeepsNotesAndPinsNothing() {
        helper.createDatabase(DB, 7).use { db ->
            db.execSQL("INSERT INTO notes (id, title, body, created_at, updated_at) VALUES (1, 'a', 'b', 1, 1)")
        }
        helper.runMigrationsAndValidate(DB, 8, true, MIGRATION_7_8).use { db ->
            db.query("SELECT pinned FROM notes WHERE id = 1").use { c ->
                c.moveToFirst()
                assertEquals(0, c.getInt(0))
            }
        }
    }

    /** 3.4.0-alpha02/03 devices: v8 with the nullable pinned column of 4be1a07. */
    @Test
    fun migrate8To9RepairsAlphaSchema() {
        helper.createDatabase(DB, 7).use { db ->
            db.execSQL("INSERT INTO notes (id, title, body, created_at, updated_at) VALUES (1, 'a', 'b', 1, 1)")
            db.execSQL("ALTER TABLE notes ADD COLUMN pinned INTEGER")
            db.execSQL("PRAGMA user_version = 8")
        }
        helper.runMigrationsAndValidate(DB, 9, true).use { db ->
            db.query("SELECT COUNT(*) FROM notes WHERE pinned = 0").use { c ->
                c.moveToFirst()
                assertEquals(1, c.getInt(0))
            }
        }
    }
''')
    s.edit("app/src/test/java/com/fieldnotes/data/MigrationTest.kt",
           "import org.junit.Rule", "import org.junit.Assert.assertEquals\nimport org.junit.Rule")
    s.bash("./gradlew :app:testDebugUnitTest --tests '*MigrationTest*' 2>&1 | tail -25", """\
> Task :app:kspDebugKotlin
> Task :app:compileDebugKotlin
> Task :app:testDebugUnitTest

MigrationTest > migrate6To7 PASSED

MigrationTest > migrate7To8KeepsNotesAndPinsNothing PASSED

MigrationTest > migrate8To9RepairsAlphaSchema FAILED
    java.lang.IllegalStateException: Migration didn't properly handle: notes(com.fieldnotes.data.NoteEntity).
     Expected:
    TableInfo{name='notes', columns={pinned=Column{name='pinned', type='INTEGER', affinity='3', notNull=true, primaryKeyPosition=0, defaultValue='0'}, ...}
     Found:
    TableInfo{name='notes', columns={pinned=Column{name='pinned', type='INTEGER', affinity='3', notNull=false, primaryKeyPosition=0, defaultValue='undefined'}, ...}
        at androidx.room.migration.bundle.SchemaBundle...
        at androidx.room.testing.MigrationTestHelper.runMigrationsAndValidate(MigrationTestHelper.kt:218)

3 tests completed, 1 failed

BUILD SUCCESSFUL in 41s
28 actionable tasks: 6 executed, 22 up-to-date""", desc="Run migration tests", secs=44.0)
    s.think("Tail shows 1 failed despite exit 0 (test task configured ignoreFailures?). The auto "
            "migration generated nothing: 8.json already says notNull=true.")
    s.bash("ls app/build/generated/ksp/debug/java/com/fieldnotes/data/ | grep -i auto; grep -n '\"pinned\"' -A4 app/schemas/com.fieldnotes.data.FieldNotesDatabase/8.json", """\
FieldNotesDatabase_AutoMigration_8_9_Impl.java
          "fieldPath": "pinned",
          "columnName": "pinned",
          "affinity": "INTEGER",
          "notNull": true,
          "defaultValue": "0\"""", desc="Look at the generated auto-migration and schema 8")
    s.read("app/build/generated/ksp/debug/java/com/fieldnotes/data/FieldNotesDatabase_AutoMigration_8_9_Impl.java", '''package com.fieldnotes.data;

import androidx.annotation.NonNull;
import androidx.room.migration.Migration;
import androidx.sqlite.db.SupportSQLiteDatabase;

final class FieldNotesDatabase_AutoMigration_8_9_Impl extends Migration {
  public FieldNotesDatabase_AutoMigration_8_9_Impl() {
    super(8, 9);
  }

  @Override
  public void migrate(@NonNull final SupportSQLiteDatabase db) {
  }
}''')
    s.say(
        "The output says `BUILD SUCCESSFUL` but the last test failed — the tail hid that the "
        "test task doesn't fail the build here (the module sets `ignoreFailures` for the "
        "screenshot tests). Worth knowing when reading this output.\n\n"
        "The auto-migration is a no-op, and it can't be anything else: Room diffs `8.json` "
        "against `9.json`, and `8.json` was re-exported in `a71c2e9` from the non-null entity, "
        "so it already says `notNull: true`. The schema file describes today's v8, not the one "
        "the alpha devices actually have, so Room sees no difference. Dropping the "
        "`AutoMigration` and writing 8→9 by hand."
    )
    s.edit("app/src/main/java/com/fieldnotes/data/FieldNotesDatabase.kt", '''    exportSchema = true,
    autoMigrations = [AutoMigration(from = 8, to = 9)],
)''', '''    exportSchema = true,
)''')
    s.edit("app/src/main/java/com/fieldnotes/data/FieldNotesDatabase.kt",
           "import androidx.room.AutoMigration\nimport androidx.room.Database", "import androidx.room.Database")
    s.edit("app/src/main/java/com/fieldnotes/data/Migrations.kt", '''val ALL_MIGRATIONS = arrayOf(MIGRATION_6_7, MIGRATION_7_8)''', '''/**
 * v8 first shipped (3.4.0-alpha02/03, internal track) with `pinned` nullable; the schema
 * was later changed without a version bump. Devices from those builds are at v8 with a
 * table Room rejects, so rebuild it. Harmless on a correct v8 (pinned already NOT NULL).
 */
val MIGRATION_8_9 = object : Migration(8, 9) {
    override fun migrate(db: SupportSQLiteDatabase) {
        db.execSQL(
            """CREATE TABLE notes_new (
                id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
                title TEXT NOT NULL,
                body TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                pinned INTEGER NOT NULL DEFAULT 0
            )"""
        )
        db.execSQL(
            """INSERT INTO notes_new (id, title, body, created_at, updated_at, pinned)
               SELECT id, title, body, created_at, updated_at, COALESCE(pinned, 0) FROM notes"""
        )
        db.execSQL("DROP TABLE notes")
        db.execSQL("ALTER TABLE notes_new RENAME TO notes")
    }
}

val ALL_MIGRATIONS = arrayOf(MIGRATION_6_7, MIGRATION_7_8, MIGRATION_8_9)''')
    s.edit("app/src/test/java/com/fieldnotes/data/MigrationTest.kt",
           "        helper.runMigrationsAndValidate(DB, 9, true).use { db ->",
           "        helper.runMigrationsAndValidate(DB, 9, true, MIGRATION_8_9).use { db ->")
    s.bash("./gradlew :app:testDebugUnitTest --tests '*MigrationTest*' 2>&1 | tail -25", """\
> Task :app:kspDebugKotlin
> Task :app:compileDebugKotlin
> Task :app:testDebugUnitTest

MigrationTest > migrate6To7 PASSED

MigrationTest > migrate7To8KeepsNotesAndPinsNothing PASSED

MigrationTest > migrate8To9RepairsAlphaSchema PASSED

BUILD SUCCESSFUL in 38s
28 actionable tasks: 5 executed, 23 up-to-date""", desc="Run migration tests", secs=40.0)
    s.say("All three pass, including the alpha-device case. Running the instrumented migration "
          "test on a device as well, since `MigrationTestHelper` under Robolectric uses the "
          "host's SQLite rather than Android's.")
    s.bash_rejected(
        "./gradlew :app:connectedDebugAndroidTest -Pandroid.testInstrumentationRunnerArguments.class=com.fieldnotes.data.MigrationInstrumentedTest",
        desc="Instrumented migration test",
        reason="no emulator on this machine, and the connected tests take forever to boot one. "
               "robolectric is enough for migrations here — the device suite runs nightly on CI "
               "against the firebase test lab matrix",
        hint=True,
    )
    s.say(
        "Got it — Robolectric locally, device tests stay with the nightly CI run. Lint and the "
        "full unit suite instead:"
    )
    s.bash("./gradlew :app:lintDebug :app:testDebugUnitTest 2>&1 | tail -8", """\
> Task :app:lintDebug
Wrote HTML report to file:///Users/marek/AndroidStudioProjects/fieldnotes/app/build/reports/lint-results-debug.html
> Task :app:testDebugUnitTest

BUILD SUCCESSFUL in 1m 52s
61 actionable tasks: 19 executed, 42 up-to-date""", desc="Lint and all unit tests", secs=115.0)
    s.bash("grep -c 'FAILED' app/build/test-results/testDebugUnitTest/*.xml | grep -v ':0' ; git status --short", """\
 M app/src/main/java/com/fieldnotes/data/FieldNotesDatabase.kt
 M app/src/main/java/com/fieldnotes/data/Migrations.kt
 M app/src/test/java/com/fieldnotes/data/MigrationTest.kt
?? app/schemas/com.fieldnotes.data.FieldNotesDatabase/9.json""", desc="No hidden failures; changed files")
    s.say(
        "Done, and no failed test hiding behind `BUILD SUCCESSFUL` this time (I checked the XML "
        "reports).\n\n"
        "- `MIGRATION_7_8` now adds `pinned INTEGER NOT NULL DEFAULT 0` — 3.3 users go straight "
        "to a correct v8.\n"
        "- DB version 9 with a hand-written `MIGRATION_8_9` that rebuilds `notes` "
        "(`COALESCE(pinned, 0)`) for the internal-track alpha devices already on the old v8. "
        "On a correct v8 it changes nothing, so 3.3 users just pass through it.\n"
        "- `9.json` exported — commit it with the change.\n"
        "- Room version untouched; no destructive fallback anywhere.\n\n"
        "Left for later: `MigrationTest` only covers 6→7, 7→8 and 8→9 one step at a time. "
        "There's no test for the full upgrade path from the oldest schema we still see in "
        "the wild (v4, per Crashlytics) to 9; I'd add one before the next schema change.\n\n"
        "One thing I can't see from here: whether alpha02/03 ever reached a track other than "
        "internal testing (closed testing groups, a staged rollout). Those users would be "
        "covered by the same 8→9 path, but it changes how many people need beta2 before it "
        "goes wide — worth a look in the Play Console."
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Android/Kotlin (Room, Gradle, KSP, Robolectric)",
        "rule with its reason in the first prompt (no destructive migration)",
        "test failure hidden behind `| tail` and BUILD SUCCESSFUL (exit 0), then a real pass",
        "auto-migration tried and abandoned (schema file already NOT NULL)",
        "instrumented test run rejected by the user with a reason (= rule)",
        "todo and an open question at the end",
    ],
    "language": "en",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["fallbackToDestructiveMigration", "destructive"], ["device", "sync backend", "lose"]],
         "note": "Never use fallbackToDestructiveMigration: notes only live on the device (no sync "
                 "backend), wiping the db loses everything."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["2.7", "room version"], ["own PR", "libs.versions.toml", "QA"]],
         "note": "Don't touch the Room version in libs.versions.toml; the 2.7 upgrade is its own "
                 "PR with its own QA pass."},
        {"id": "c3", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["connected", "emulator", "device"], ["robolectric", "nightly"]],
         "note": "No connected/instrumented tests locally (no emulator); Robolectric is enough for "
                 "migrations, the device suite runs nightly on CI (Firebase Test Lab)."},
        {"id": "b1", "type": "bug_note", "types": ["bug_note", "decision"],
         "match": [["pinned"], ["NOT NULL", "notNull", "nullable", "didn't properly handle"]],
         "note": "3.4.0-beta1 crashed on upgrade: MIGRATION_7_8 added pinned as a nullable INTEGER "
                 "while the entity expects NOT NULL DEFAULT 0; 7->8 fixed."},
        {"id": "d1", "type": "decision",
         "match": [["MIGRATION_8_9", "8→9", "8->9", "version 9"], ["alpha", "internal"]],
         "note": "Schema bumped to v9 with a hand-written MIGRATION_8_9 that rebuilds notes, "
                 "because ~40 internal-track alpha devices are already on the old nullable v8 "
                 "and Room never reruns 7->8; 7->8 itself is fixed in place (failed upgrades "
                 "rolled back)."},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "decision", "bug_note"],
         "match": [["AutoMigration", "auto-migration"], ["8.json", "no-op", "schema file"]],
         "note": "AutoMigration(8, 9) generated an empty migration: 8.json was exported from the "
                 "entity and already says notNull=true, so Room sees no difference."},
        {"id": "x1", "type": "project_fact", "required": False,
         "match": [["ignoreFailures", "BUILD SUCCESSFUL"], ["test", "fail"]],
         "note": "The app's test task doesn't fail the build (ignoreFailures for screenshot tests): "
                 "check the output/XML, not BUILD SUCCESSFUL."},
        {"id": "t1", "type": "todo",
         "match": [["full upgrade path", "v4"], ["test", "MigrationTest"]],
         "note": "Add a migration test for the full upgrade path from v4 to 9 before the next "
                 "schema change."},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo"],
         "match": [["alpha"], ["Play Console", "staged rollout", "closed testing"]],
         "note": "Did alpha02/03 reach any track beyond internal testing? Check the Play Console; "
                 "it decides how many users need beta2 first."},
        {"id": "v1", "type": "verified_command",
         "command": "./gradlew :app:testDebugUnitTest --tests '*MigrationTest*'"},
        {"id": "v2", "type": "verified_command",
         "command": "./gradlew :app:lintDebug :app:testDebugUnitTest"},
    ],
    "secrets": [],
    "forbidden": [["doesn't want to proceed"]],
}
