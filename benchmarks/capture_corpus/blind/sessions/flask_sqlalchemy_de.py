# ruff: noqa: E501  (verbatim command output and file contents)
"""Flask + SQLAlchemy 2.0: DetachedInstanceError after a refactoring, Alembic index (German)."""

from make_sessions import Session

DB = '''from contextlib import contextmanager

from sqlalchemy import create_engine
from sqlalchemy.orm import sessionmaker

from app.config import settings

engine = create_engine(settings.database_url, pool_pre_ping=True, pool_size=10)
SessionLocal = sessionmaker(bind=engine)


@contextmanager
def session_scope():
    """Eine Session pro Request-Abschnitt: commit bei Erfolg, rollback bei Fehler, immer close."""
    session = SessionLocal()
    try:
        yield session
        session.commit()
    except Exception:
        session.rollback()
        raise
    finally:
        session.close()
'''

API = '''from flask import Blueprint, abort, jsonify

from app.db import session_scope
from app.models import Bestellung
from app.serializers import bestellung_dict

bp = Blueprint("bestellungen", __name__, url_prefix="/api/bestellungen")


@bp.get("/<int:bestellung_id>")
def bestellung_anzeigen(bestellung_id: int):
    with session_scope() as session:
        bestellung = session.get(Bestellung, bestellung_id)
        if bestellung is None:
            abort(404)
    return jsonify(bestellung_dict(bestellung))
'''

SERIALIZERS = '''from app.models import Bestellung


def position_dict(p) -> dict:
    return {"artikel": p.artikel_nr, "menge": p.menge, "preis": str(p.einzelpreis)}


def bestellung_dict(b: Bestellung) -> dict:
    data = {
        "id": b.id,
        "status": b.status,
        "summe": str(b.summe),
        "erstellt": b.erstellt_am.isoformat(),
    }
    # Versendete Bestellungen zeigen die Positionen (Lieferschein im Kundenkonto).
    if b.status == "versendet":
        data["positionen"] = [position_dict(p) for p in b.positionen]
    return data
'''

MODELS = '''from datetime import datetime
from decimal import Decimal

from sqlalchemy import ForeignKey, Numeric, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


class Base(DeclarativeBase):
    pass


class Bestellung(Base):
    __tablename__ = "bestellungen"

    id: Mapped[int] = mapped_column(primary_key=True)
    kunde_id: Mapped[int] = mapped_column(ForeignKey("kunden.id"), index=True)
    status: Mapped[str] = mapped_column(String(20))
    summe: Mapped[Decimal] = mapped_column(Numeric(12, 2))
    erstellt_am: Mapped[datetime]

    positionen: Mapped[list["Position"]] = relationship(back_populates="bestellung")


class Position(Base):
    __tablename__ = "positionen"

    id: Mapped[int] = mapped_column(primary_key=True)
    bestellung_id: Mapped[int] = mapped_column(ForeignKey("bestellungen.id"))
    artikel_nr: Mapped[str] = mapped_column(String(32))
    menge: Mapped[int]
    einzelpreis: Mapped[Decimal] = mapped_column(Numeric(12, 2))

    bestellung: Mapped[Bestellung] = relationship(back_populates="positionen")
'''

TEST = '''from decimal import Decimal


def test_offene_bestellung(client, bestellung_factory):
    b = bestellung_factory(status="offen")
    res = client.get(f"/api/bestellungen/{b.id}")
    assert res.status_code == 200
    assert "positionen" not in res.json
'''

DETACHED = ("sqlalchemy.orm.exc.DetachedInstanceError: Parent instance <Bestellung at 0x7f3c2a9e4d10> "
            "is not bound to a Session; lazy load operation of attribute 'positionen' cannot proceed "
            "(Background on this error at: https://sqlalche.me/e/20/bhk3)")


def build() -> Session:
    s = Session("flask-sqlalchemy-de", cwd="/home/katrin/projekte/lagerwelt-api",
                branch="fix/bestellung-detached", start="2026-03-04T07:52:19.006Z",
                version="2.1.47", slug="gentle-weaving-badger")
    s.user(
        "Guten Morgen! Seit dem Refactoring gestern (Commit „DB-Sessions über session_scope“) "
        "wirft GET /api/bestellungen/<id> manchmal 500. Sentry sagt:\n\n"
        f"```\n{DETACHED}\n```\n\n"
        "Kannst du dir das ansehen? Zur Info: wir nutzen SQLAlchemy direkt, ohne "
        "Flask-SQLAlchemy, und das soll auch so bleiben.",
        wait=4,
    )
    s.call(s.read_call("app/api/bestellungen.py", API), s.read_call("app/db.py", DB),
           s.read_call("app/serializers.py", SERIALIZERS))
    s.say(
        "Das „manchmal“ ist leicht erklärt: `bestellung_dict` greift nur bei Status "
        "`versendet` auf `b.positionen` zu. Der Zugriff passiert aber *nach* dem `with "
        "session_scope()`-Block – die Session ist da schon geschlossen, `positionen` wurde "
        "nie geladen, und ein Lazy Load ohne Session geht nicht. Offene Bestellungen laufen "
        "durch, versendete knallen.\n\nIch schreibe zuerst einen Test, der genau das zeigt."
    )
    s.read("tests/api/test_bestellungen.py", TEST)
    s.edit("tests/api/test_bestellungen.py", '''    assert "positionen" not in res.json
''', '''    assert "positionen" not in res.json


def test_versendete_bestellung_zeigt_positionen(client, bestellung_factory):
    b = bestellung_factory(status="versendet", positionen=[("A-100", 2, Decimal("9.90")), ("B-7", 1, Decimal("24.00"))])
    res = client.get(f"/api/bestellungen/{b.id}")
    assert res.status_code == 200
    assert [p["artikel"] for p in res.json["positionen"]] == ["A-100", "B-7"]
''')
    s.bash("pytest tests/api/test_bestellungen.py -q 2>&1 | tail -15", f"""\
.F                                                                       [100%]
=================================== FAILURES ===================================
_________________ test_versendete_bestellung_zeigt_positionen __________________
app/api/bestellungen.py:16: in bestellung_anzeigen
    return jsonify(bestellung_dict(bestellung))
app/serializers.py:17: in bestellung_dict
    data["positionen"] = [position_dict(p) for p in b.positionen]
E   {DETACHED}
=========================== short test summary info ============================
FAILED tests/api/test_bestellungen.py::test_versendete_bestellung_zeigt_positionen - sqlalchemy.orm.exc.DetachedInstanceError: Parent instance <Bestellung at 0x7f3c2a9e4d10> is not bound to a Session; lazy load operation of attribute 'positionen' cannot proceed
1 failed, 1 passed in 0.61s""", desc="Bestellungs-Tests", secs=5.0)
    s.say(
        "Reproduziert. Naheliegender erster Versuch: `SessionLocal` mit "
        "`expire_on_commit=False`, damit die Objekte nach dem Commit im `session_scope` ihre "
        "Werte behalten."
    )
    s.edit("app/db.py", "SessionLocal = sessionmaker(bind=engine)",
           "SessionLocal = sessionmaker(bind=engine, expire_on_commit=False)")
    s.bash("pytest tests/api/test_bestellungen.py -q 2>&1 | tail -4", """\
E   sqlalchemy.orm.exc.DetachedInstanceError: Parent instance <Bestellung at 0x7f2d81b0a950> is not bound to a Session; lazy load operation of attribute 'positionen' cannot proceed (Background on this error at: https://sqlalche.me/e/20/bhk3)
=========================== short test summary info ============================
FAILED tests/api/test_bestellungen.py::test_versendete_bestellung_zeigt_positionen - sqlalchemy.orm.exc.DetachedInstanceError: Parent instance <Bestellung at 0x7f2d81b0a950> is not bound to a Session; lazy load operation of attribute 'positionen' cannot proceed
1 failed, 1 passed in 0.58s""", desc="Bestellungs-Tests", secs=5.0)
    s.say(
        "Hilft nicht, und das ist auch logisch: `expire_on_commit=False` bewahrt nur schon "
        "*geladene* Attribute. `positionen` war nie geladen, der Lazy Load braucht trotzdem "
        "eine Session. Nehme ich wieder raus."
    )
    s.edit("app/db.py", "SessionLocal = sessionmaker(bind=engine, expire_on_commit=False)",
           "SessionLocal = sessionmaker(bind=engine)")
    s.turn_end()
    s.user(
        "Gut, dass das wieder draußen ist – expire_on_commit=False ist bei uns tabu. Damit "
        "hatten wir letztes Jahr veraltete Lagerbestände in der Antwort, nachdem ein anderer "
        "Request schon gebucht hatte. Was ist die richtige Lösung?",
        wait=75,
    )
    s.say(
        "Die Positionen explizit mitladen, solange die Session offen ist, und auch das "
        "Serialisieren in den `with`-Block ziehen, damit kein Attribut mehr nach dem Schließen "
        "angefasst wird.\n\n"
        "Zum Laden nehme ich `selectinload` und nicht `joinedload`: ein JOIN würde die "
        "Bestellzeile für jede Position wiederholen – bei Großkunden-Bestellungen mit ein paar "
        "hundert Positionen ist das viel Ballast. `selectinload` macht eine zweite Abfrage "
        "`WHERE bestellung_id IN (...)`."
    )
    s.edit("app/api/bestellungen.py", '''from flask import Blueprint, abort, jsonify

from app.db import session_scope''', '''from flask import Blueprint, abort, jsonify
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from app.db import session_scope''')
    s.edit("app/api/bestellungen.py", '''    with session_scope() as session:
        bestellung = session.get(Bestellung, bestellung_id)
        if bestellung is None:
            abort(404)
    return jsonify(bestellung_dict(bestellung))''', '''    with session_scope() as session:
        bestellung = session.scalars(
            select(Bestellung)
            .where(Bestellung.id == bestellung_id)
            .options(selectinload(Bestellung.positionen))
        ).one_or_none()
        if bestellung is None:
            abort(404)
        # Innerhalb der Session serialisieren: danach ist nichts mehr nachladbar.
        return jsonify(bestellung_dict(bestellung))''')
    s.bash("pytest tests/api/test_bestellungen.py -q 2>&1 | tail -4", "..                                                                       [100%]\n2 passed in 0.55s",
           desc="Bestellungs-Tests", secs=5.0)
    s.read("app/models.py", MODELS)
    s.say(
        "Grün. Beim Blick ins Modell: `positionen.bestellung_id` hat keinen Index "
        "(`kunde_id` schon). Die `IN`-Abfrage von `selectinload` – und übrigens auch jeder "
        "bisherige Lazy Load – läuft damit auf Postgres als Seq Scan über die ganze Tabelle. "
        "Ich würde eine Alembic-Migration für den Index anlegen."
    )
    s.turn_end()
    s.user(
        "Ja, bitte. Aber positionen hat um die 40 Mio. Zeilen: Indizes auf der Tabelle immer "
        "CONCURRENTLY anlegen, sonst steht der Checkout, solange der Lock hängt.",
        wait=50,
    )
    s.bash("alembic revision -m 'index positionen.bestellung_id'", """\
  Generating /home/katrin/projekte/lagerwelt-api/migrations/versions/2026_03_04_0811-7c1e4b2a9f03_index_positionen_bestellung_id.py ...  done""",
           desc="Neue Migration")
    s.read("migrations/versions/2026_03_04_0811-7c1e4b2a9f03_index_positionen_bestellung_id.py", '''"""index positionen.bestellung_id

Revision ID: 7c1e4b2a9f03
Revises: e4b90d17c2aa
Create Date: 2026-03-04 08:11:40.213377

"""
from alembic import op
import sqlalchemy as sa


revision = "7c1e4b2a9f03"
down_revision = "e4b90d17c2aa"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
''')
    s.edit("migrations/versions/2026_03_04_0811-7c1e4b2a9f03_index_positionen_bestellung_id.py", '''def upgrade() -> None:
    pass


def downgrade() -> None:
    pass''', '''def upgrade() -> None:
    # CONCURRENTLY geht nicht in einer Transaktion; ohne CONCURRENTLY sperrt Postgres
    # positionen (~40 Mio. Zeilen) für Schreibzugriffe, bis der Index fertig ist.
    with op.get_context().autocommit_block():
        op.create_index(
            "ix_positionen_bestellung_id",
            "positionen",
            ["bestellung_id"],
            postgresql_concurrently=True,
            if_not_exists=True,
        )


def downgrade() -> None:
    with op.get_context().autocommit_block():
        op.drop_index(
            "ix_positionen_bestellung_id",
            table_name="positionen",
            postgresql_concurrently=True,
            if_exists=True,
        )''')
    s.edit("app/models.py", '''    bestellung_id: Mapped[int] = mapped_column(ForeignKey("bestellungen.id"))''',
           '''    bestellung_id: Mapped[int] = mapped_column(ForeignKey("bestellungen.id"), index=True)''')
    s.bash("alembic upgrade head && alembic downgrade -1 && alembic upgrade head 2>&1 | tail -6", """\
INFO  [alembic.runtime.migration] Context impl PostgresqlImpl.
INFO  [alembic.runtime.migration] Will assume transactional DDL.
INFO  [alembic.runtime.migration] Running upgrade e4b90d17c2aa -> 7c1e4b2a9f03, index positionen.bestellung_id
INFO  [alembic.runtime.migration] Running downgrade 7c1e4b2a9f03 -> e4b90d17c2aa, index positionen.bestellung_id
INFO  [alembic.runtime.migration] Running upgrade e4b90d17c2aa -> 7c1e4b2a9f03, index positionen.bestellung_id""",
           desc="Migration hin und zurück (lokale DB)", secs=9.0)
    s.bash("alembic check", "No new upgrade operations detected.", desc="Modell und Migrationen konsistent?")
    s.grep("session_scope\\(\\) as", content='''app/api/bestellungen.py:16:    with session_scope() as session:
app/api/kunden.py:22:    with session_scope() as session:
app/api/kunden.py:41:    with session_scope() as session:
app/api/lager.py:18:    with session_scope() as session:''', path="app/api")
    s.read("app/api/kunden.py", '''from flask import Blueprint, abort, jsonify

from app.db import session_scope
from app.models import Kunde
from app.serializers import kunde_dict, adressen_liste

bp = Blueprint("kunden", __name__, url_prefix="/api/kunden")


@bp.get("/<int:kunde_id>")
def kunde_anzeigen(kunde_id: int):
    with session_scope() as session:
        kunde = session.get(Kunde, kunde_id)
        if kunde is None:
            abort(404)
        return jsonify(kunde_dict(kunde))


@bp.get("/<int:kunde_id>/adressen")
def adressen(kunde_id: int):
    with session_scope() as session:
        kunde = session.get(Kunde, kunde_id)
        if kunde is None:
            abort(404)
    return jsonify(adressen_liste(kunde.adressen))
''')
    s.bash("pytest -q && ruff check app tests 2>&1 | tail -5", """\
........................................................................ [ 61%]
.............................................                            [100%]
117 passed in 8.94s
All checks passed!""", desc="Alle Tests und Ruff", secs=14.0)
    s.say(
        "Fertig:\n\n"
        "- `GET /api/bestellungen/<id>` lädt die Positionen per `selectinload` und "
        "serialisiert innerhalb von `session_scope` – kein Lazy Load mehr nach dem Schließen.\n"
        "- Regressionstest für eine versendete Bestellung mit Positionen.\n"
        "- Migration `7c1e4b2a9f03`: Index `ix_positionen_bestellung_id`, CONCURRENTLY im "
        "`autocommit_block`, hin und zurück lokal getestet; Modell trägt `index=True`, "
        "`alembic check` ist sauber.\n"
        "- `expire_on_commit` bleibt, wie es war.\n\n"
        "Dasselbe Muster steckt noch in `app/api/kunden.py`, Route `/<id>/adressen`: "
        "`kunde.adressen` wird nach dem `with`-Block gelesen. Das wird genauso knallen, "
        "sobald jemand die Route aufruft – habe ich nicht angefasst, weil es nicht zu diesem "
        "Ticket gehört."
    )
    s.turn_end()
    s.user("Danke. Sollten wir nicht einfach überall lazy='raise' setzen, damit sowas schon im "
           "Test auffällt?", wait=90)
    s.bash("grep -rn 'relationship(' app/models.py | wc -l", "14", desc="Wie viele Relationships?")
    s.say(
        "Das würde genau diese Fehlerklasse früh sichtbar machen – mit `lazy=\"raise_on_sql\"` "
        "fliegt ein Fehler, sobald ein Attribut SQL nachladen müsste, auch *innerhalb* der "
        "Session. Der Haken: es gibt 14 Relationships, und einige Stellen (Admin-Views, "
        "Reports) verlassen sich bewusst auf Lazy Loading. Global umstellen hieße, all die "
        "Stellen auf explizites Laden umzubauen. Ob euch das den Aufwand wert ist oder ob ihr "
        "es erst nur in der Testkonfiguration einschaltet, ist eine Teamfrage – ich habe "
        "nichts davon geändert."
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Flask + SQLAlchemy 2.0 + Alembic, whole session in German",
        "rule in the first prompt (no Flask-SQLAlchemy)",
        "test failure behind `| tail` (exit 0); expire_on_commit=False tried, still failing, reverted",
        "the user turns the reverted attempt into a rule with its reason",
        "selectinload vs joinedload decision; CONCURRENTLY rule for a big table",
        "todo (same bug in another route) and an open question (lazy='raise') at the end",
    ],
    "language": "de",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["Flask-SQLAlchemy"]],
         "note": "SQLAlchemy wird direkt genutzt, ohne Flask-SQLAlchemy, und das bleibt so."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["expire_on_commit"], ["tabu", "Lagerbest", "veraltet"]],
         "note": "expire_on_commit=False ist tabu: hat veraltete Lagerbestände ausgeliefert."},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "bug_note"],
         "match": [["expire_on_commit"], ["nie geladen", "geladene", "Lazy Load"]],
         "note": "expire_on_commit=False half nicht: es erhält nur geladene Attribute, der Lazy "
                 "Load von positionen braucht trotzdem eine Session."},
        {"id": "b1", "type": "bug_note",
         "match": [["DetachedInstanceError", "Lazy Load", "lazy load"], ["positionen"], ["session_scope", "with", "versendet"]],
         "note": "GET /api/bestellungen/<id> warf DetachedInstanceError, weil bestellung_dict "
                 "positionen (nur bei Status versendet) nach dem session_scope-Block nachlud; "
                 "jetzt selectinload und Serialisieren in der Session."},
        {"id": "d1", "type": "decision",
         "match": [["selectinload"], ["joinedload", "JOIN", "Ballast"]],
         "note": "selectinload statt joinedload, weil ein JOIN die Bestellzeile für jede von "
                 "hunderten Positionen wiederholen würde."},
        {"id": "c3", "type": "constraint", "types": ["constraint", "preference", "decision"],
         "match": [["CONCURRENTLY"], ["positionen", "40 Mio", "Checkout", "Lock"]],
         "note": "Indizes auf positionen (~40 Mio. Zeilen) immer CONCURRENTLY anlegen, sonst "
                 "steht der Checkout; Migration 7c1e4b2a9f03 im autocommit_block."},
        {"id": "t1", "type": "todo",
         "match": [["kunden.py", "adressen"], ["with", "nachgeladen", "gleiche", "dasselbe", "Muster"]],
         "note": "app/api/kunden.py /<id>/adressen liest kunde.adressen nach dem with-Block: "
                 "derselbe Bug, noch nicht behoben."},
        {"id": "q1", "type": "open_question", "types": ["open_question", "decision", "todo"],
         "match": [["raise_on_sql", "lazy='raise'", "lazy=\"raise"], ["Team", "14"]],
         "note": "lazy='raise_on_sql' überall würde solche Fehler im Test zeigen, aber 14 "
                 "Relationships und bewusstes Lazy Loading in Admin/Reports; Teamentscheidung "
                 "offen."},
        {"id": "v1", "type": "verified_command", "command": "pytest tests/api/test_bestellungen.py -q"},
        {"id": "v2", "type": "verified_command", "command": "pytest -q && ruff check app tests"},
        {"id": "v3", "type": "verified_command", "required": False,
         "command": "alembic upgrade head && alembic downgrade -1 && alembic upgrade head"},
        {"id": "v4", "type": "verified_command", "required": False, "command": "alembic check"},
    ],
    "secrets": [],
    "forbidden": [],
}
