# ruff: noqa: E501  (verbatim command output and file contents)
"""Phoenix LiveView direct-to-S3 uploads: plan mode, presigned PUT abandoned, a diff review with change requests (German)."""

from make_sessions import Call, Session

PLAN_PATH = "/home/mira/.claude/plans/direct-upload-otter.md"

PLAN = '''# Fotos für Inserate: Direkt-Upload nach S3

1. `allow_upload(:fotos, external: &presign_upload/2, max_entries: 8, accept: ~w(.jpg .jpeg .png .webp))` in `InseratLive.Form`.
2. Presigning mit ExAws (schon im Projekt), kein neues Paket.
3. JS-Uploader `S3` in `assets/js/uploaders.js`.
4. Nach dem Speichern die Schlüssel in `inserat_fotos` ablegen.
5. Tests: LiveView-Test mit `file_input/4` + `render_upload/2`.'''

FORM_LIVE = '''defmodule KleinanzeigenWeb.InseratLive.Form do
  use KleinanzeigenWeb, :live_view

  alias Kleinanzeigen.Inserate

  def mount(_params, _session, socket) do
    {:ok, assign(socket, form: to_form(Inserate.change_inserat(%Inserate.Inserat{})))}
  end

  def handle_event("save", %{"inserat" => params}, socket) do
    case Inserate.create_inserat(socket.assigns.current_user, params) do
      {:ok, inserat} -> {:noreply, push_navigate(socket, to: ~p"/inserate/#{inserat}")}
      {:error, cs} -> {:noreply, assign(socket, form: to_form(cs))}
    end
  end
end
'''

MIX_DEPS = '''  defp deps do
    [
      {:phoenix, "~> 1.7.14"},
      {:phoenix_live_view, "~> 0.20.17"},
      {:ecto_sql, "~> 3.11"},
      {:postgrex, ">= 0.0.0"},
      {:ex_aws, "~> 2.5"},
      {:ex_aws_s3, "~> 2.5"},
      {:hackney, "~> 1.20"},
      {:sweet_xml, "~> 0.7"}
    ]
  end
'''


def build() -> Session:
    s = Session("liveview-s3-uploads-plan-de", cwd="/home/mira/dev/kleinanzeigen", branch="feat/inserat-fotos",
                start="2026-03-19T08:22:40.117Z", version="2.1.52", slug="direct-upload-otter",
                permission_mode="plan")
    s.user(
        "Inserate sollen Fotos bekommen, bis zu 8 pro Inserat. Die Dateien sollen direkt vom Browser "
        "nach S3, nicht über unsere Fly-Maschinen – die haben 256 MB RAM und sind schon beim CSV-Import "
        "umgefallen. Erst Plan zeigen. Und keine neuen Hex-Pakete ohne vorher zu fragen.",
        wait=6,
    )
    s.call(s.read_call("lib/kleinanzeigen_web/live/inserat_live/form.ex", FORM_LIVE),
           s.read_call("mix.exs", MIX_DEPS))
    s.call(Call("ExitPlanMode", {"plan": PLAN},
                "User has approved your plan. You can now start coding. Start with updating your todo list if applicable\n\n"
                f"Your plan has been saved to: {PLAN_PATH}\nYou can refer back to it if needed during implementation.\n\n## Approved Plan:\n{PLAN}",
                {"plan": PLAN, "isAgent": False, "filePath": PLAN_PATH}, secs=70))
    s.permission_mode = "acceptEdits"
    s.say("Ich fange mit einer vorsignierten PUT-URL an, das ist mit `ExAws.S3.presigned_url/5` am kürzesten.")
    s.edit("lib/kleinanzeigen_web/live/inserat_live/form.ex", '''    {:ok, assign(socket, form: to_form(Inserate.change_inserat(%Inserate.Inserat{})))}
  end''', '''    {:ok,
     socket
     |> assign(form: to_form(Inserate.change_inserat(%Inserate.Inserat{})))
     |> allow_upload(:fotos,
       accept: ~w(.jpg .jpeg .png .webp),
       max_entries: 8,
       max_file_size: 10_000_000,
       external: &presign_upload/2
     )}
  end

  defp presign_upload(entry, socket) do
    key = "inserate/#{Ecto.UUID.generate()}#{Path.extname(entry.client_name)}"
    {:ok, url} =
      ExAws.Config.new(:s3)
      |> ExAws.S3.presigned_url(:put, "kleinanzeigen-fotos", key, expires_in: 600)

    {:ok, %{uploader: "S3", url: url}, socket}
  end''')
    s.write("assets/js/uploaders.js", '''export const Uploaders = {}

Uploaders.S3 = function (entries, onViewError) {
  entries.forEach(entry => {
    let xhr = new XMLHttpRequest()
    onViewError(() => xhr.abort())
    xhr.onload = () => (xhr.status === 200 ? entry.progress(100) : entry.error())
    xhr.onerror = () => entry.error()
    xhr.upload.addEventListener("progress", e => {
      if (e.lengthComputable) entry.progress(Math.round((e.loaded / e.total) * 100))
    })
    xhr.open("PUT", entry.meta.url, true)
    xhr.setRequestHeader("Content-Type", entry.file.type)
    xhr.send(entry.file)
  })
}
''')
    s.say("Kannst du im Browser mal ein Foto hochladen? Ich starte den Server nicht selbst.")
    s.turn_end()
    s.user('''geht nicht, 403 von S3:

<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided. Check your key and signing method.</Message>''', wait=110)
    s.say(
        "Die PUT-URL ist ohne `Content-Type` signiert, der Browser schickt aber `image/jpeg` mit — "
        "dann stimmt die Signatur nicht. Statt den Header mitzusignieren nehme ich eine vorsignierte "
        "POST-Policy (`ExAws.S3.presigned_post/4`): da kann ich zusätzlich die Größe serverseitig "
        "begrenzen (`content-length-range`), was mit PUT nicht geht."
    )
    s.edit("lib/kleinanzeigen_web/live/inserat_live/form.ex", '''    {:ok, url} =
      ExAws.Config.new(:s3)
      |> ExAws.S3.presigned_url(:put, "kleinanzeigen-fotos", key, expires_in: 600)

    {:ok, %{uploader: "S3", url: url}, socket}''', '''    {:ok, %{url: url, fields: fields}} =
      ExAws.S3.presigned_post(ExAws.Config.new(:s3), "kleinanzeigen-fotos", key,
        expires_in: 600,
        content_length_range: [1, 10_000_000]
      )

    {:ok, %{uploader: "S3", url: url, fields: fields}, socket}''')
    s.edit("assets/js/uploaders.js", '''    xhr.open("PUT", entry.meta.url, true)
    xhr.setRequestHeader("Content-Type", entry.file.type)
    xhr.send(entry.file)''', '''    let form = new FormData()
    Object.entries(entry.meta.fields).forEach(([k, v]) => form.append(k, v))
    form.append("file", entry.file)
    xhr.open("POST", entry.meta.url, true)
    xhr.send(form)''')
    s.edit("assets/js/uploaders.js", '''    xhr.onload = () => (xhr.status === 200 ? entry.progress(100) : entry.error())''', '''    xhr.onload = () => (xhr.status === 204 ? entry.progress(100) : entry.error())''')
    s.edit("lib/kleinanzeigen_web/live/inserat_live/form.ex", '''  def handle_event("save", %{"inserat" => params}, socket) do
    case Inserate.create_inserat(socket.assigns.current_user, params) do''', '''  def handle_event("save", %{"inserat" => params}, socket) do
    keys = consume_uploaded_entries(socket, :fotos, fn %{key: key}, _entry -> {:ok, key} end)

    case Inserate.create_inserat(socket.assigns.current_user, params, keys) do''')
    s.bash("mix test test/kleinanzeigen_web/live/inserat_live_test.exs 2>&1 | tail -14", '''  1) test speichert ein Inserat mit zwei Fotos (KleinanzeigenWeb.InseratLiveTest)
     test/kleinanzeigen_web/live/inserat_live_test.exs:31
     ** (KeyError) key :key not found in: %{
       fields: %{"key" => "inserate/0b7c3e0e-5d8f-4c1e-9a59-7d0c2b1f6e11.jpg", "policy" => "eyJ...", "x-amz-algorithm" => "AWS4-HMAC-SHA256"},
       uploader: "S3",
       url: "https://kleinanzeigen-fotos.s3.eu-central-1.amazonaws.com"
     }
     code: |> render_submit()
     stacktrace:
       (kleinanzeigen 0.1.0) lib/kleinanzeigen_web/live/inserat_live/form.ex:37: anonymous fn/2 in KleinanzeigenWeb.InseratLive.Form.handle_event/3

Finished in 0.4 seconds (0.2s async, 0.2s sync)
6 tests, 1 failure''', desc="LiveView-Tests", secs=14)
    s.say("Der Schlüssel steckt jetzt nur noch in `fields[\"key\"]`; ich lege ihn zusätzlich direkt in die Meta-Daten.")
    s.edit("lib/kleinanzeigen_web/live/inserat_live/form.ex", '''    {:ok, %{uploader: "S3", url: url, fields: fields}, socket}''', '''    {:ok, %{uploader: "S3", key: key, url: url, fields: fields}, socket}''')
    s.bash("mix test test/kleinanzeigen_web/live/inserat_live_test.exs 2>&1 | tail -3", '''Finished in 0.4 seconds (0.2s async, 0.2s sync)
6 tests, 0 failures''', desc="LiveView-Tests", secs=12)
    s.say("Grün. Zeig ich dir den Diff, bevor ich weitermache?")
    s.turn_end()
    s.user(
        "hab drübergeschaut. zwei Sachen: presign_upload gehört nicht ins LiveView, S3-Zeug liegt bei "
        "uns im Context (Kleinanzeigen.Medien), siehe wie Avatare gemacht sind. und die 10 MB nicht "
        "zweimal hart reinschreiben, das kommt in die config",
        wait=140,
    )
    s.grep("presigned|Medien", content='''lib/kleinanzeigen/medien.ex:1:defmodule Kleinanzeigen.Medien do
lib/kleinanzeigen/medien.ex:14:  def avatar_upload_meta(user, entry) do
config/config.exs:5:config :kleinanzeigen, Kleinanzeigen.Medien, bucket: "kleinanzeigen-fotos", avatar_max_bytes: 2_000_000''')
    s.edit("lib/kleinanzeigen_web/live/inserat_live/form.ex", '''       max_file_size: 10_000_000,''', '''       max_file_size: Medien.foto_max_bytes(),''')
    s.edit("lib/kleinanzeigen_web/live/inserat_live/form.ex", '''  alias Kleinanzeigen.Inserate''', '''  alias Kleinanzeigen.Inserate
  alias Kleinanzeigen.Medien''')
    s.edit_rejected("lib/kleinanzeigen_web/live/inserat_live/form.ex", '''  defp presign_upload(entry, socket) do''', '''  # TODO: nach Medien verschieben
  defp presign_upload(entry, socket) do''', reason="nicht TODO, jetzt verschieben. genau wie avatar_upload_meta")
    s.files[s.abs("lib/kleinanzeigen/medien.ex")] = '''defmodule Kleinanzeigen.Medien do
  @moduledoc "Dateien in S3."

  defp config, do: Application.fetch_env!(:kleinanzeigen, __MODULE__)
end
'''
    s.edit("lib/kleinanzeigen/medien.ex", '''  defp config, do: Application.fetch_env!(:kleinanzeigen, __MODULE__)''', '''  defp config, do: Application.fetch_env!(:kleinanzeigen, __MODULE__)

  def foto_max_bytes, do: config()[:foto_max_bytes]

  @doc "Vorsignierte POST-Policy für ein Inseratfoto (Upload direkt vom Browser)."
  def foto_upload_meta(entry) do
    key = "inserate/#{Ecto.UUID.generate()}#{Path.extname(entry.client_name)}"

    {:ok, %{url: url, fields: fields}} =
      ExAws.S3.presigned_post(ExAws.Config.new(:s3), config()[:bucket], key,
        expires_in: 600,
        content_length_range: [1, foto_max_bytes()]
      )

    %{uploader: "S3", key: key, url: url, fields: fields}
  end''')
    s.files[s.abs("config/config.exs")] = '''import Config

config :kleinanzeigen, ecto_repos: [Kleinanzeigen.Repo]

config :kleinanzeigen, Kleinanzeigen.Medien, bucket: "kleinanzeigen-fotos", avatar_max_bytes: 2_000_000

import_config "#{config_env()}.exs"
'''
    s.edit("config/config.exs", '''avatar_max_bytes: 2_000_000''', '''avatar_max_bytes: 2_000_000, foto_max_bytes: 10_000_000''')
    s.edit("lib/kleinanzeigen_web/live/inserat_live/form.ex", '''  defp presign_upload(entry, socket) do
    key = "inserate/#{Ecto.UUID.generate()}#{Path.extname(entry.client_name)}"
    {:ok, %{url: url, fields: fields}} =
      ExAws.S3.presigned_post(ExAws.Config.new(:s3), "kleinanzeigen-fotos", key,
        expires_in: 600,
        content_length_range: [1, 10_000_000]
      )

    {:ok, %{uploader: "S3", key: key, url: url, fields: fields}, socket}
  end''', '''  defp presign_upload(entry, socket), do: {:ok, Medien.foto_upload_meta(entry), socket}''')
    s.bash("mix format --check-formatted && mix credo --strict && mix test", '''Checking 64 source files ...

Analysis took 0.9 seconds (0.03s to load, 0.8s running 52 checks on 64 files)
318 mods/funs, found no issues.
..............................................................................
Finished in 3.1 seconds (1.9s async, 1.2s sync)
142 tests, 0 failures''', desc="Format, Credo, alle Tests", secs=40)
    s.say(
        "Umgebaut: `Kleinanzeigen.Medien.foto_upload_meta/1` macht das Presigning wie "
        "`avatar_upload_meta`, das LiveView ruft nur noch das auf; `foto_max_bytes` (10 MB) steht "
        "einmal in `config/config.exs` und wird für `max_file_size` und die S3-Policy benutzt. "
        "Format, Credo strict und alle 142 Tests grün.\n\n"
        "Was fehlt: abgebrochene Uploads liegen für immer im Bucket (Datei hochgeladen, Inserat nie "
        "gespeichert). Eine Lifecycle-Regel auf `inserate/` mit einem Tag für unbestätigte Objekte "
        "wäre sauber. Außerdem: werden Vorschaubilder gebraucht? Im Moment liefern wir die Originale aus."
    )
    s.turn_end()
    s.user("lifecycle mach ich mit Jonas im terraform-repo, nicht hier. thumbnails klär ich mit Design, vielleicht reicht imgproxy", wait=60)
    s.say("Alles klar, ich lasse beides.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Phoenix LiveView 0.20 external uploads to S3 with ExAws, German",
        "plan mode from the first prompt, ExitPlanMode approved, then edits",
        "rules in the first prompt with reasons (no uploads through the 256 MB Fly machines; no new Hex packages without asking)",
        "presigned PUT failing in the browser (SignatureDoesNotMatch, pasted by the user), replaced by a presigned POST policy",
        "KeyError in consume_uploaded_entries behind `| tail`, then passing",
        "a diff review with two change requests (S3 code in the Medien context like avatars; limit in config), an Edit rejected with a reason (no TODO, move it now)",
        "todo with a colleague in another repo, question for Design",
    ],
    "language": "de",
    "empty": False,
    "items": [
        {"id": "d1", "type": "decision", "types": ["decision", "constraint"],
         "match": [["direkt", "S3"], ["256 MB", "Fly"]],
         "note": "Fotos gehen direkt vom Browser nach S3, nicht über die Fly-Maschinen (256 MB RAM, schon beim CSV-Import umgefallen)."},
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["Hex-Pakete", "Hex"], ["fragen"]],
         "note": "Keine neuen Hex-Pakete ohne vorher zu fragen (ExAws ist schon da)."},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "bug_note"],
         "match": [["SignatureDoesNotMatch", "presigned_url", "PUT"], ["Content-Type"]],
         "note": "Vorsignierte PUT-URL scheiterte mit SignatureDoesNotMatch, weil der Browser Content-Type mitschickt, der nicht signiert war."},
        {"id": "d2", "type": "decision",
         "match": [["presigned_post", "POST-Policy"], ["content-length-range", "content_length_range", "Größe"]],
         "note": "Presigned POST statt PUT, weil die Policy die Größe serverseitig begrenzt (content-length-range)."},
        {"id": "b1", "type": "bug_note",
         "match": [["KeyError", ":key"], ["consume_uploaded_entries", "Meta"]],
         "note": "consume_uploaded_entries bekommt die Meta-Map; der Schlüssel steckte nur in fields[\"key\"] (KeyError :key), jetzt liegt key direkt in der Meta."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["Medien"], ["LiveView", "Context", "avatar"]],
         "note": "S3-Code gehört in den Context Kleinanzeigen.Medien, nicht ins LiveView — wie bei den Avataren."},
        {"id": "p1", "type": "preference", "types": ["preference", "constraint"],
         "match": [["config"], ["10 MB", "foto_max_bytes", "hart"]],
         "note": "Limits wie die 10 MB nicht hart kodieren, sondern einmal in die config (foto_max_bytes)."},
        {"id": "p2", "type": "preference", "types": ["preference", "constraint"], "required": False,
         "match": [["TODO"], ["verschieben"]],
         "note": "Kein TODO-Kommentar für Umbauten, die gleich gemacht werden können."},
        {"id": "t1", "type": "todo",
         "match": [["lifecycle", "Lifecycle"], ["Jonas", "terraform"]],
         "note": "Lifecycle-Regel für abgebrochene Uploads unter inserate/ macht Mira mit Jonas im Terraform-Repo."},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo"],
         "match": [["thumbnail", "Vorschaubild"], ["Design", "imgproxy"]],
         "note": "Braucht es Vorschaubilder? Mira klärt das mit Design, vielleicht reicht imgproxy."},
        {"id": "v1", "type": "verified_command", "command": "mix format --check-formatted && mix credo --strict && mix test"},
        {"id": "v2", "type": "verified_command", "required": False, "command": "mix test test/kleinanzeigen_web/live/inserat_live_test.exs"},
    ],
    "secrets": [],
    "forbidden": [["User has approved your plan"], ["Approved Plan"], ["doesn't want to proceed"]],
}
