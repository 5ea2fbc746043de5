# ruff: noqa: E501  (verbatim command output and file contents)
"""Spring Boot invoices: user corrects the agent (Flyway, not Liquibase); AskUserQuestion carrying a rule (Italian)."""

from make_sessions import Session

ENTITY = '''package it.contabile.fatture;

import jakarta.persistence.*;
import java.math.BigDecimal;
import java.time.LocalDate;

@Entity
@Table(name = "fattura")
public class Fattura {
    @Id @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;
    private String numero;
    private LocalDate dataEmissione;
    private BigDecimal totale;
    // getters/setters omessi
}
'''

V7 = '''CREATE TABLE fattura (
    id BIGSERIAL PRIMARY KEY,
    numero VARCHAR(32) NOT NULL UNIQUE,
    data_emissione DATE NOT NULL,
    totale NUMERIC(12,2) NOT NULL
);
'''

REPO_TEST_FAIL = """[ERROR] Tests run: 4, Failures: 0, Errors: 1, Skipped: 0, Time elapsed: 6.112 s <<< FAILURE! -- in it.contabile.fatture.FatturaRepositoryTest
[ERROR] it.contabile.fatture.FatturaRepositoryTest -- Time elapsed: 6.112 s <<< ERROR!
org.flywaydb.core.api.exception.FlywayValidateException: Validate failed: Migrations have failed validation
Migration checksum mismatch for migration version 7
-> Applied to database : 1630450118
-> Resolved locally    : -904812365
Either revert the changes to the migration, or run repair to update the schema history."""


def build() -> Session:
    s = Session("spring-flyway-it", cwd="/home/giulia/lavoro/contabile", branch="feature/annullo-fatture",
                start="2026-02-17T08:55:03.470Z", version="2.1.45", slug="tidy-ledger-heron")
    s.user(
        "Ciao! Serve poter annullare una fattura dal gestionale. Adesso l'unico modo è cancellarla "
        "a mano dal DB. Aggiungi lo stato e un endpoint POST /fatture/{id}/annulla.",
        wait=8,
    )
    s.call(s.read_call("src/main/java/it/contabile/fatture/Fattura.java", ENTITY))
    s.glob("src/main/resources/db/**", ["src/main/resources/db/changelog/.gitkeep",
                                        "src/main/resources/db/migration/V7__fattura.sql"])
    s.say("Aggiungo la colonna `stato` con un changeset Liquibase in `db/changelog`:")
    s.call(s.rejected_call("Write", {
        "file_path": s.abs("src/main/resources/db/changelog/008-stato-fattura.yaml"),
        "content": "databaseChangeLog:\n  - changeSet:\n      id: 008-stato-fattura\n      author: claude\n      changes:\n        - addColumn:\n            tableName: fattura\n            columns:\n              - column: {name: stato, type: varchar(16), defaultValue: EMESSA}\n"},
        reason="no, è sbagliato: qui usiamo Flyway, Liquibase l'abbiamo tolto l'anno scorso. quella cartella changelog è un avanzo, ignorala"))
    s.say(
        "Chiaro, Flyway. Le migrazioni stanno in `db/migration` (c'è già `V7__fattura.sql`). "
        "Visto che V7 è piccola aggiungo lì la colonna:"
    )
    s.call(s.read_call("src/main/resources/db/migration/V7__fattura.sql", V7))
    s.edit("src/main/resources/db/migration/V7__fattura.sql", '''    totale NUMERIC(12,2) NOT NULL
);''', '''    totale NUMERIC(12,2) NOT NULL,
    stato VARCHAR(16) NOT NULL DEFAULT 'EMESSA'
);''')
    s.bash("./mvnw -q test -Dtest=FatturaRepositoryTest 2>&1 | tail -9", REPO_TEST_FAIL, desc="Test repository")
    s.say(
        "Errore mio: V7 è già applicata (anche in produzione), quindi modificarla cambia il "
        "checksum e Flyway rifiuta di partire. Una migrazione applicata non si tocca: riporto V7 "
        "com'era e aggiungo `V8__stato_fattura.sql`."
    )
    s.edit("src/main/resources/db/migration/V7__fattura.sql", '''    totale NUMERIC(12,2) NOT NULL,
    stato VARCHAR(16) NOT NULL DEFAULT 'EMESSA'
);''', '''    totale NUMERIC(12,2) NOT NULL
);''')
    s.write("src/main/resources/db/migration/V8__stato_fattura.sql",
            "ALTER TABLE fattura ADD COLUMN stato VARCHAR(16) NOT NULL DEFAULT 'EMESSA';\n")
    q1 = "Annullare una fattura cosa deve fare sui dati?"
    s.ask(
        [{"question": q1, "header": "Annullo",
          "options": [("Solo stato ANNULLATA", "La riga resta, cambia lo stato"),
                      ("Cancellazione", "DELETE della riga e delle righe collegate")]}],
        {q1: "Solo stato. Le fatture non si cancellano mai fisicamente, conservazione obbligatoria 10 anni. E serve una nota di credito collegata, ma quella la fa Paolo nel modulo suo"},
    )
    s.edit("src/main/java/it/contabile/fatture/Fattura.java", '''    private BigDecimal totale;''', '''    private BigDecimal totale;
    @Enumerated(EnumType.STRING)
    private StatoFattura stato = StatoFattura.EMESSA;''')
    s.write("src/main/java/it/contabile/fatture/StatoFattura.java", '''package it.contabile.fatture;

public enum StatoFattura { EMESSA, ANNULLATA }
''')
    s.write("src/main/java/it/contabile/fatture/AnnulloController.java", '''package it.contabile.fatture;

import org.springframework.http.ResponseEntity;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.*;

@RestController
@RequestMapping("/fatture")
class AnnulloController {
    private final FatturaRepository repo;

    AnnulloController(FatturaRepository repo) { this.repo = repo; }

    // Mai DELETE: conservazione obbligatoria 10 anni. La nota di credito la crea il modulo di Paolo.
    @PostMapping("/{id}/annulla")
    @Transactional
    ResponseEntity<Void> annulla(@PathVariable Long id) {
        var f = repo.findById(id).orElseThrow();
        if (f.getStato() == StatoFattura.ANNULLATA) return ResponseEntity.status(409).build();
        f.setStato(StatoFattura.ANNULLATA);
        return ResponseEntity.noContent().build();
    }
}
''')
    s.bash("./mvnw -q test -Dtest='FatturaRepositoryTest,AnnulloControllerTest' 2>&1 | tail -3", """\
[INFO] Tests run: 7, Failures: 0, Errors: 0, Skipped: 0
[INFO] BUILD SUCCESS""", desc="Test", secs=40)
    s.bash("./mvnw -q verify 2>&1 | tail -3", """\
[INFO] Tests run: 212, Failures: 0, Errors: 0, Skipped: 3
[INFO] BUILD SUCCESS""", desc="Build completa", secs=160)
    s.say(
        "Fatto:\n- `V8__stato_fattura.sql` (V7 ripristinata, mai modificare migrazioni applicate)\n"
        "- enum `StatoFattura`, `POST /fatture/{id}/annulla` → 204, 409 se già annullata; "
        "nessuna cancellazione fisica\n- `./mvnw verify` verde (212 test).\n\n"
        "La nota di credito collegata non c'è: aspetta il modulo di Paolo."
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Spring Boot + Flyway + Maven wrapper, Italian",
        "a Write rejected with a correction ('no, è sbagliato: qui usiamo Flyway, Liquibase l'abbiamo tolto')",
        "an applied migration edited, Flyway checksum mismatch, reverted and a new V8 added",
        "AskUserQuestion answered in free text with a rule, its reason and a dependency on a colleague",
    ],
    "language": "it",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "project_fact", "preference"],
         "match": [["Flyway"], ["Liquibase"]],
         "note": "Il progetto usa Flyway (db/migration); Liquibase è stato tolto l'anno scorso, la cartella db/changelog è un avanzo da ignorare."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "bug_note", "failed_attempt"],
         "match": [["V7", "applicata", "checksum"], ["V8", "non si tocca", "mai modificare"]],
         "note": "Mai modificare una migrazione Flyway già applicata (V7 → checksum mismatch): si aggiunge una nuova versione (V8__stato_fattura.sql)."},
        {"id": "c3", "type": "constraint", "types": ["constraint", "preference", "decision"],
         "match": [["cancella"], ["10 anni", "conservazione"]],
         "note": "Le fatture non si cancellano mai fisicamente (conservazione obbligatoria 10 anni): l'annullo cambia solo lo stato in ANNULLATA."},
        {"id": "d1", "type": "decision", "required": False,
         "match": [["annulla"], ["409"]],
         "note": "POST /fatture/{id}/annulla risponde 204, 409 se la fattura è già annullata."},
        {"id": "t1", "type": "todo", "types": ["todo", "project_fact"],
         "match": [["nota di credito"], ["Paolo"]],
         "note": "Manca la nota di credito collegata all'annullo: la fa Paolo nel suo modulo."},
        {"id": "v1", "type": "verified_command", "command": "./mvnw -q test -Dtest='FatturaRepositoryTest,AnnulloControllerTest'"},
        {"id": "v2", "type": "verified_command", "command": "./mvnw -q verify"},
    ],
    "secrets": [],
    "forbidden": [["doesn't want to proceed"], ["User has answered"]],
}
