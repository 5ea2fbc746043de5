# ruff: noqa: E501  (verbatim command output and file contents)
"""Phoenix/Oban billing app: duplicate payment reminders on job retry (French, background tasks)."""

from make_sessions import Session

WORKER = '''defmodule Facturo.Workers.RelanceWorker do
  @moduledoc "Envoie une relance de paiement et la signale à Stripe."
  use Oban.Worker, queue: :relances, max_attempts: 5

  alias Facturo.{Factures, Mailer, StripeClient}
  alias Facturo.Emails.RelanceEmail

  @impl Oban.Worker
  def perform(%Oban.Job{args: %{"facture_id" => id, "niveau" => niveau}}) do
    facture = Factures.get!(id)

    facture
    |> RelanceEmail.build(niveau)
    |> Mailer.deliver!()

    {:ok, _} = StripeClient.marquer_relance(facture.stripe_invoice_id, niveau)
    :ok
  end
end
'''

RELANCES = '''defmodule Facturo.Relances do
  @moduledoc "Historique des relances envoyées."
  import Ecto.Query
  alias Facturo.Repo
  alias Facturo.Relances.Relance

  def enregistrer(facture_id, niveau) do
    %Relance{}
    |> Relance.changeset(%{facture_id: facture_id, niveau: niveau})
    |> Repo.insert()
  end

  def pour_facture(facture_id) do
    Repo.all(from r in Relance, where: r.facture_id == ^facture_id, order_by: r.inserted_at)
  end
end
'''

SCHEMA = '''defmodule Facturo.Relances.Relance do
  use Ecto.Schema
  import Ecto.Changeset

  schema "relances" do
    field :facture_id, :id
    field :niveau, :integer
    timestamps(updated_at: false)
  end

  def changeset(relance, attrs) do
    relance
    |> cast(attrs, [:facture_id, :niveau])
    |> validate_required([:facture_id, :niveau])
  end
end
'''

MIGRATION = '''defmodule Facturo.Repo.Migrations.AddUniqueIndexRelances do
  use Ecto.Migration

  def change do
    create unique_index(:relances, [:facture_id, :niveau])
  end
end
'''

MIGRATION_FIXED = '''defmodule Facturo.Repo.Migrations.AddUniqueIndexRelances do
  use Ecto.Migration

  def up do
    # Des doublons existent déjà (relances envoyées deux fois) : on garde la plus ancienne.
    execute """
    DELETE FROM relances r
    USING relances r2
    WHERE r.facture_id = r2.facture_id
      AND r.niveau = r2.niveau
      AND r.id > r2.id
    """

    create unique_index(:relances, [:facture_id, :niveau])
  end

  def down do
    drop index(:relances, [:facture_id, :niveau])
  end
end
'''

WORKER_TEST = '''defmodule Facturo.Workers.RelanceWorkerTest do
  use Facturo.DataCase, async: true
  use Oban.Testing, repo: Facturo.Repo
  import Swoosh.TestAssertions
  import Mox

  alias Facturo.Workers.RelanceWorker

  setup :verify_on_exit!

  test "envoie la relance et la signale à Stripe" do
    facture = insert(:facture)
    expect(StripeMock, :marquer_relance, fn _, 1 -> {:ok, %{}} end)

    assert :ok = perform_job(RelanceWorker, %{facture_id: facture.id, niveau: 1})
    assert_email_sent(subject: "Rappel : facture #{facture.numero}")
  end
end
'''


def build() -> Session:
    s = Session("phoenix-oban-fr", cwd="/home/camille/dev/facturo", branch="fix/relances-doublons",
                start="2026-02-26T13:48:19.215Z", version="2.1.39", slug="patient-drifting-meadow",
                permission_mode="acceptEdits")
    s.user(
        "Salut ! Les relances de paiement partent en double : quand l'appel Stripe dans le "
        "worker fait un timeout, Oban retente le job et le client reçoit un deuxième mail. "
        "Le support a eu trois plaintes cette semaine. C'est dans "
        "lib/facturo/workers/relance_worker.ex.\n\n"
        "Et pas de GenServer maison pour gérer ça : ici tout ce qui est asynchrone passe par "
        "Oban, point.",
        wait=4,
    )
    s.call(s.read_call("lib/facturo/workers/relance_worker.ex", WORKER),
           s.read_call("lib/facturo/relances.ex", RELANCES),
           s.read_call("lib/facturo/relances/relance.ex", SCHEMA))
    s.say(
        "Le scénario est clair : `perform/1` envoie le mail, *puis* appelle Stripe. Si Stripe "
        "dépasse le délai, le `{:ok, _} =` plante, le job échoue, et Oban le rejoue depuis le "
        "début — mail compris. Rien n'enregistre qu'on a déjà envoyé.\n\n"
        "Au passage, l'option `unique:` d'Oban ne suffirait pas : elle empêche d'insérer deux "
        "jobs identiques, mais ici c'est le même job qui est rejoué. La garantie doit donc venir "
        "de la base : un index unique sur `(facture_id, niveau)` dans `relances`, et le worker "
        "enregistre la relance *avant* d'envoyer le mail. Au deuxième passage l'insertion "
        "échoue sur le conflit et on saute l'envoi, tout en retentant l'appel Stripe."
    )
    s.bash("mix ecto.gen.migration add_unique_index_relances",
           "* creating priv/repo/migrations/20260226134955_add_unique_index_relances.exs",
           desc="Générer la migration")
    s.read("priv/repo/migrations/20260226134955_add_unique_index_relances.exs",
           "defmodule Facturo.Repo.Migrations.AddUniqueIndexRelances do\n  use Ecto.Migration\n\n"
           "  def change do\n\n  end\nend\n")
    s.write("priv/repo/migrations/20260226134955_add_unique_index_relances.exs", MIGRATION)
    s.bash("mix ecto.migrate", """\

14:50:31.102 [info] == Running 20260226134955 Facturo.Repo.Migrations.AddUniqueIndexRelances.change/0 forward

14:50:31.104 [info] create index relances_facture_id_niveau_index
** (Postgrex.Error) ERROR 23505 (unique_violation) could not create unique index "relances_facture_id_niveau_index"

    table: relances
    constraint: relances_facture_id_niveau_index

Key (facture_id, niveau)=(8812, 1) is duplicated.
    (ecto_sql 3.12.1) lib/ecto/adapters/sql.ex:1096: Ecto.Adapters.SQL.raise_sql_call_error/1""",
           code=1, desc="Appliquer la migration", secs=4.0)
    s.say(
        "Logique : la base locale (copie anonymisée de la prod) contient déjà les doublons du "
        "bug — la facture 8812 a deux relances de niveau 1. L'index ne peut pas être créé tant "
        "qu'ils existent. La migration supprime d'abord les doublons en gardant la plus ancienne "
        "ligne (celle qui correspond au premier envoi), puis crée l'index. Je passe en "
        "`up`/`down` puisque le `DELETE` n'est pas réversible."
    )
    s.write("priv/repo/migrations/20260226134955_add_unique_index_relances.exs", MIGRATION_FIXED)
    s.bash("mix ecto.migrate 2>&1 | tail -15", """\

14:52:02.448 [info] == Running 20260226134955 Facturo.Repo.Migrations.AddUniqueIndexRelances.up/0 forward

14:52:02.449 [info] execute "DELETE FROM relances r\\nUSING relances r2\\nWHERE r.facture_id = r2.facture_id\\n  AND r.niveau = r2.niveau\\n  AND r.id > r2.id\\n"

14:52:02.463 [info] create index relances_facture_id_niveau_index

14:52:02.471 [info] == Migrated 20260226134955 in 0.0s""", desc="Appliquer la migration", secs=4.0)
    s.edit("lib/facturo/relances/relance.ex", '''    |> validate_required([:facture_id, :niveau])''',
           '''    |> validate_required([:facture_id, :niveau])
    |> unique_constraint(:facture_id)''')
    s.edit("lib/facturo/workers/relance_worker.ex", '''  alias Facturo.{Factures, Mailer, StripeClient}
  alias Facturo.Emails.RelanceEmail

  @impl Oban.Worker
  def perform(%Oban.Job{args: %{"facture_id" => id, "niveau" => niveau}}) do
    facture = Factures.get!(id)

    facture
    |> RelanceEmail.build(niveau)
    |> Mailer.deliver!()

    {:ok, _} = StripeClient.marquer_relance(facture.stripe_invoice_id, niveau)
    :ok
  end''', '''  alias Facturo.{Factures, Mailer, Relances, StripeClient}
  alias Facturo.Emails.RelanceEmail

  @impl Oban.Worker
  def perform(%Oban.Job{args: %{"facture_id" => id, "niveau" => niveau}}) do
    facture = Factures.get!(id)

    # L'enregistrement passe avant le mail : si le job est rejoué (timeout Stripe),
    # l'index unique refuse la deuxième ligne et on n'envoie pas une seconde fois.
    case Relances.enregistrer(facture.id, niveau) do
      {:ok, _} ->
        facture |> RelanceEmail.build(niveau) |> Mailer.deliver!()

      {:error, %Ecto.Changeset{errors: [facture_id: {_, [constraint: :unique | _]}]}} ->
        :deja_envoyee
    end

    case StripeClient.marquer_relance(facture.stripe_invoice_id, niveau) do
      {:ok, _} -> :ok
      {:error, reason} -> {:error, reason}
    end
  end''')
    s.read("test/facturo/workers/relance_worker_test.exs", WORKER_TEST)
    s.edit("test/facturo/workers/relance_worker_test.exs", '''    assert_email_sent(subject: "Rappel : facture #{facture.numero}")
  end
end''', '''    assert_email_sent(subject: "Rappel : facture #{facture.numero}")
  end

  test "un job rejoué après un timeout Stripe n'envoie pas un second mail" do
    facture = insert(:facture)
    expect(StripeMock, :marquer_relance, fn _, 1 -> {:error, :timeout} end)
    expect(StripeMock, :marquer_relance, fn _, 1 -> {:ok, %{}} end)

    assert {:error, :timeout} = perform_job(RelanceWorker, %{facture_id: facture.id, niveau: 1})
    assert_email_sent(subject: "Rappel : facture #{facture.numero}")

    assert :ok = perform_job(RelanceWorker, %{facture_id: facture.id, niveau: 1})
    refute_email_sent()
    assert [_] = Facturo.Relances.pour_facture(facture.id)
  end
end''')
    s.say("Les tests prennent un moment (compilation des deps de test) et dialyzer doit "
          "reconstruire son PLT après la mise à jour d'Ecto : je lance les deux en arrière-plan "
          "et je relis le diff pendant ce temps.")
    task = s.bash_bg("mix test test/facturo/workers", "Tests des workers")
    full = s.bash_bg("mix dialyzer", "Dialyzer")
    s.bash("git diff --stat", """\
 lib/facturo/relances/relance.ex                     |  1 +
 lib/facturo/workers/relance_worker.ex               | 23 ++++++++++++++++-------
 test/facturo/workers/relance_worker_test.exs        | 14 ++++++++++++++
 3 files changed, 31 insertions(+), 7 deletions(-)""", desc="Vue d'ensemble du diff")
    s.say("Le diff est limité au worker, au schéma et au test (la migration est un nouveau "
          "fichier). J'attends le résultat des tests.")
    s.turn_end()
    out_file = s.task_notification(task, "Tests des workers", status="failed", exit_code=2, wait=48)
    s.read(out_file, """\
  1) test un job rejoué après un timeout Stripe n'envoie pas un second mail (Facturo.Workers.RelanceWorkerTest)
     test/facturo/workers/relance_worker_test.exs:21
     ** (Ecto.ConstraintError) constraint error when attempting to insert struct:

         * "relances_facture_id_niveau_index" (unique_constraint)

     If you would like to stop this constraint violation from raising an
     exception and instead add it as an error to your changeset, please
     call `unique_constraint/3` on your changeset with the constraint
     `:name` as an option.

     The changeset defined the following constraints:

         * "relances_facture_id_index" (unique_constraint)

     code: assert :ok = perform_job(RelanceWorker, %{facture_id: facture.id, niveau: 1})
     stacktrace:
       (ecto 3.12.4) lib/ecto/repo/schema.ex:815: Ecto.Repo.Schema.constraints_to_errors/3
       (facturo 0.9.0) lib/facturo/workers/relance_worker.ex:14: Facturo.Workers.RelanceWorker.perform/1

Finished in 1.9 seconds (0.4s async, 1.5s sync)
6 tests, 1 failure""")
    s.say(
        "Le test fait ce qu'il fallait : au rejeu, l'insertion tombe bien sur l'index. Mais "
        "l'erreur remonte en exception au lieu d'un changeset invalide, et le message dit "
        "pourquoi : avec un seul champ, `unique_constraint(:facture_id)` attend une contrainte "
        "nommée `relances_facture_id_index`, alors que l'index créé par la migration s'appelle "
        "`relances_facture_id_niveau_index`. Ecto ne fait pas le lien et lève. En passant les "
        "deux champs, le nom déduit est le bon."
    )
    s.edit("lib/facturo/relances/relance.ex", "    |> unique_constraint(:facture_id)",
           "    |> unique_constraint([:facture_id, :niveau])")
    s.bash("mix test test/facturo/workers 2>&1 | tail -30", """\
Running ExUnit with seed: 402118, max_cases: 16

......
Finished in 1.7 seconds (0.4s async, 1.3s sync)
6 tests, 0 failures""", desc="Tests des workers", secs=14.0)
    s.bash("mix test 2>&1 | tail -5", """\
...........................................................................................
.........................................................................................
Finished in 4.2 seconds (2.9s async, 1.3s sync)
212 tests, 0 failures""", desc="Suite complète", secs=22.0)
    s.say(
        "Tout passe (212 tests). Récapitulatif :\n\n"
        "- **Cause :** le worker envoyait le mail avant l'appel Stripe ; un timeout Stripe "
        "faisait rejouer le job entier, mail compris.\n"
        "- **Correctif :** index unique `relances(facture_id, niveau)` (la migration supprime "
        "d'abord les doublons existants en gardant le premier envoi) ; le worker enregistre la "
        "relance avant d'envoyer et saute le mail si elle existe déjà. L'appel Stripe, lui, est "
        "retenté normalement par Oban.\n"
        "- Pas de nouveau processus : tout reste dans le worker Oban existant.\n"
        "- Nouveau test qui simule le timeout puis le rejeu."
    )
    s.turn_end()
    s.user(
        "Top. Par contre on est vendredi : on ne déploie jamais le vendredi, donc la migration "
        "attendra lundi. Note-le dans la description de la PR. Et il faudrait qu'on sache "
        "combien de clients ont reçu des doublons ce mois-ci pour que le support puisse leur "
        "écrire.",
        wait=150,
    )
    s.bash('gh pr create --draft --title "Relances : ne plus envoyer deux fois quand le job est rejoué" '
           '--body "$(cat <<\'EOF\'\n'
           'Corrige les relances en double quand l\'appel Stripe fait un timeout et qu\'Oban rejoue le job.\n\n'
           '- index unique relances(facture_id, niveau), doublons existants supprimés par la migration\n'
           '- le worker enregistre la relance avant d\'envoyer le mail\n\n'
           '⚠️ Contient une migration : **déploiement lundi**, pas avant (pas de déploiement le vendredi).\n'
           'EOF\n)"',
           "https://github.com/facturo/facturo/pull/482", desc="Ouvrir la PR en brouillon", secs=3.0)
    s.say(
        "PR ouverte en brouillon : https://github.com/facturo/facturo/pull/482, avec le "
        "déploiement lundi noté en gras.\n\n"
        "Pour les clients touchés : je ne peux pas le calculer en local (la copie n'a pas les "
        "mails de ce mois), mais sur la prod ce serait les lignes que la migration va supprimer. "
        "À lancer **avant** lundi, sinon l'information disparaît avec les doublons :\n\n"
        "```sql\nSELECT DISTINCT f.client_id\nFROM relances r\nJOIN relances r2 ON r.facture_id = r2.facture_id "
        "AND r.niveau = r2.niveau AND r.id > r2.id\nJOIN factures f ON f.id = r.facture_id\n"
        "WHERE r.inserted_at >= date_trunc('month', now());\n```\n\n"
        "Je ne l'ai pas exécutée : il faut un accès lecture à la prod."
    )
    s.turn_end()
    dialyzer_out = s.task_notification(full, "Dialyzer", wait=20)
    s.read(dialyzer_out, """\
Finding suitable PLTs
Checking PLT...
Looking up modules in dialyxir_erlang-26.2.5_elixir-1.17.3_deps-dev.plt
Finding applications for dialyxir_erlang-26.2.5_elixir-1.17.3_deps-dev.plt
Building PLT for 214 modules (this may take a while)
done in 5m38.91s
Starting Dialyzer
Total errors: 0, Skipped: 0, Unnecessary Skips: 0
done in 0m21.40s
done (passed successfully)""")
    s.say("Dialyzer est passé sans erreur ; les six minutes venaient de la reconstruction du PLT. "
          "Rien à ajouter à la PR.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "French user and replies",
        "rules in prompts (Oban, never deploy on Friday)",
        "migration failing (exit 1) then fixed",
        "two background commands and their <task-notification>s (one failed, read from the output file)",
        "a reply to a notification after the real wrap-up",
        "heredoc in a gh command",
        "todos at the end",
    ],
    "language": "fr",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["GenServer"], ["Oban"]],
         "note": "Pas de GenServer maison : tout ce qui est asynchrone passe par Oban."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["vendredi"], ["déploi"]],
         "note": "On ne déploie jamais le vendredi."},
        {"id": "b1", "type": "bug_note",
         "match": [["Stripe"], ["timeout"], ["double", "second mail", "deuxième mail"]],
         "note": "Relances en double : le worker envoyait le mail avant l'appel Stripe, et un "
                 "timeout Stripe faisait rejouer tout le job par Oban."},
        {"id": "d1", "type": "decision",
         "match": [["index unique", "unique_index", "relances_facture_id_niveau_index"],
                   ["rejou", "même job", "avant d'envoyer"]],
         "note": "La garantie vient de la base (index unique relances(facture_id, niveau), "
                 "enregistrement avant le mail), car `unique:` d'Oban n'empêche pas le rejeu du "
                 "même job."},
        {"id": "b2", "type": "bug_note", "types": ["bug_note", "failed_attempt", "decision"],
         "match": [["migration"], ["23505", "duplicated", "doublons"]],
         "note": "La migration échouait (23505) sur les doublons déjà en base ; elle les "
                 "supprime d'abord en gardant le premier envoi."},
        {"id": "b3", "type": "bug_note",
         "match": [["unique_constraint"], ["relances_facture_id_index", "niveau"]],
         "note": "unique_constraint(:facture_id) attend relances_facture_id_index et lève une "
                 "Ecto.ConstraintError ; unique_constraint([:facture_id, :niveau]) donne le bon nom."},
        {"id": "t1", "type": "todo",
         "match": [["lundi"], ["migration", "déploi"]],
         "note": "La migration (PR #482) part lundi, pas avant."},
        {"id": "t2", "type": "todo", "types": ["todo", "open_question"],
         "match": [["support"], ["doublons", "clients"]],
         "note": "Compter les clients qui ont reçu des doublons ce mois-ci (requête SQL sur la "
                 "prod, avant la migration de lundi) pour que le support leur écrive."},
        {"id": "v1", "type": "verified_command", "command": "mix ecto.migrate"},
        {"id": "v2", "type": "verified_command", "command": "mix test test/facturo/workers"},
        {"id": "v3", "type": "verified_command", "command": "mix test"},
        {"id": "v4", "type": "verified_command", "required": False, "command": "mix dialyzer"},
    ],
    "secrets": [],
    "forbidden": [["task-notification"], ["Background command"], ["Read the output file"]],
}
