# ruff: noqa: E501  (verbatim command output and file contents)
"""SvelteKit subscription form with double opt-in; a background build fails (Russian)."""

from make_sessions import Session

MAILER = '''import { POSTMARK_TOKEN } from "$env/static/private";
import { ServerClient } from "postmark";

const client = new ServerClient(POSTMARK_TOKEN);

export async function sendMail(to: string, template: string, model: Record<string, unknown>) {
  await client.sendEmailWithTemplate({
    From: "Книжный клуб <hello@knizhny.club>",
    To: to,
    TemplateAlias: template,
    TemplateModel: model,
    MessageStream: "outbound",
  });
}
'''

DB = '''import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { DATABASE_URL } from "$env/static/private";
import type { DB } from "./schema";

export const db = new Kysely<DB>({
  dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: DATABASE_URL }) }),
});
'''

LAYOUT = '''<script lang="ts">
  import "../app.css";
  let { children } = $props();
</script>

<main class="container">
  {@render children()}
</main>
'''

PAGE_FETCH = '''<script lang="ts">
  import { isValidEmail, } from "$lib/subscribe";

  let email = $state("");
  let status = $state<"idle" | "sending" | "sent" | "error">("idle");
  let valid = $derived(isValidEmail(email));

  async function onsubmit(event: SubmitEvent) {
    event.preventDefault();
    status = "sending";
    const res = await fetch("/api/subscribe", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email }),
    });
    status = res.ok ? "sent" : "error";
  }
</script>

<h1>Рассылка клуба</h1>
{#if status === "sent"}
  <p>Проверьте почту — мы отправили ссылку для подтверждения.</p>
{:else}
  <form {onsubmit}>
    <input type="email" bind:value={email} placeholder="you@example.com" required />
    <button disabled={!valid || status === "sending"}>Подписаться</button>
    {#if status === "error"}<p class="error">Не получилось, попробуйте ещё раз.</p>{/if}
  </form>
{/if}
'''

SUBSCRIBE_LIB = '''import { createHash, randomBytes } from "node:crypto";
import { db } from "$lib/db";
import { sendMail } from "$lib/mailer";

const EMAIL = /^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$/;

export function isValidEmail(email: string): boolean {
  return EMAIL.test(email.trim());
}

const TOKEN_TTL_HOURS = 48;

export async function startSubscription(email: string, origin: string) {
  const token = randomBytes(32).toString("base64url");
  await db
    .insertInto("subscriptions")
    .values({
      email: email.trim().toLowerCase(),
      token_hash: createHash("sha256").update(token).digest("hex"),
      expires_at: new Date(Date.now() + TOKEN_TTL_HOURS * 3600_000),
    })
    .onConflict((oc) => oc.column("email").doUpdateSet((eb) => ({
      token_hash: eb.ref("excluded.token_hash"),
      expires_at: eb.ref("excluded.expires_at"),
    })).where("subscriptions.confirmed_at", "is", null))
    .execute();
  await sendMail(email, "subscribe-confirm", { url: `${origin}/subscribe/confirm?t=${token}` });
}
'''

PAGE_SERVER = '''import { fail } from "@sveltejs/kit";
import { isValidEmail, startSubscription } from "$lib/subscribe";
import type { Actions } from "./$types";

export const actions: Actions = {
  default: async ({ request, url }) => {
    const email = String((await request.formData()).get("email") ?? "");
    if (!isValidEmail(email)) {
      return fail(400, { email, invalid: true });
    }
    await startSubscription(email, url.origin);
    return { sent: true };
  },
};
'''

PAGE_ACTION = '''<script lang="ts">
  import { enhance } from "$app/forms";
  import { isValidEmail } from "$lib/subscribe";

  let { form } = $props();
  let email = $state(form?.email ?? "");
  let sending = $state(false);
  let looksValid = $derived(email === "" || isValidEmail(email));
</script>

<h1>Рассылка клуба</h1>
{#if form?.sent}
  <p>Проверьте почту — мы отправили ссылку для подтверждения.</p>
{:else}
  <form
    method="POST"
    use:enhance={() => {
      sending = true;
      return async ({ update }) => {
        await update();
        sending = false;
      };
    }}
  >
    <input type="email" name="email" bind:value={email} placeholder="you@example.com" required />
    <button disabled={sending}>Подписаться</button>
    {#if form?.invalid || !looksValid}<p class="error">Похоже, в адресе опечатка.</p>{/if}
  </form>
{/if}
'''

TEST = '''import { describe, expect, it } from "vitest";
import { isValidEmail } from "$lib/email";

describe("isValidEmail", () => {
  it.each(["a@b.co", " Anna@Example.com ", "x.y+z@mail.ru"])("accepts %s", (e) => {
    expect(isValidEmail(e)).toBe(true);
  });
  it.each(["", "anna", "anna@", "anna@mail", "a b@c.de"])("rejects %j", (e) => {
    expect(isValidEmail(e)).toBe(false);
  });
});
'''


def build() -> Session:
    s = Session("sveltekit-subscribe-ru", cwd="/home/olga/dev/knizhny-club", branch="feat/newsletter",
                start="2026-03-10T16:12:03.774Z", version="2.1.50", slug="merry-sorting-lynx",
                model="claude-sonnet-4-6")
    s.user(
        "Привет! Нужна форма подписки на рассылку на /subscribe. Письма шлём через наш "
        "src/lib/mailer.ts (Postmark). Подписка только с подтверждением по ссылке из письма — "
        "юристы настаивают из-за GDPR, у нас много читателей из ЕС.\n\n"
        "И в новом коде только Svelte 5 с рунами: никаких `export let` и writable-сторов, мы "
        "постепенно от них уходим.",
        wait=5,
    )
    s.call(s.read_call("src/lib/mailer.ts", MAILER), s.read_call("src/lib/db.ts", DB),
           s.read_call("src/routes/+layout.svelte", LAYOUT))
    s.bash("ls migrations/ | tail -3 && grep -n '\"svelte\\|\"@sveltejs/kit\\|\"kysely' package.json", """\
0011_reviews.sql
0012_reading_lists.sql
0013_events_rsvp.sql
    "@sveltejs/kit": "^2.16.0",
    "kysely": "^0.27.5",
    "svelte": "^5.19.2",""", desc="Миграции и версии")
    s.say(
        "Kysely + Postgres, миграции — голые SQL-файлы. Схема двойного подтверждения:\n\n"
        "- таблица `subscriptions` (email уникальный, `token_hash`, `expires_at`, "
        "`confirmed_at`);\n"
        "- в письмо уходит случайный токен, а в базе лежит только его SHA-256: если дамп базы "
        "куда-то утечёт, по нему нельзя подтвердить чужие адреса;\n"
        "- ссылка живёт 48 часов, повторная подписка до подтверждения просто выпускает новый "
        "токен.\n\n"
        "Сначала миграция и серверная часть, потом страница."
    )
    s.write("migrations/0014_subscriptions.sql", '''CREATE TABLE subscriptions (
  id           bigserial PRIMARY KEY,
  email        text NOT NULL UNIQUE,
  token_hash   text NOT NULL,
  expires_at   timestamptz NOT NULL,
  confirmed_at timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now()
);
''')
    s.write("src/lib/subscribe.ts", SUBSCRIBE_LIB)
    s.write("src/routes/api/subscribe/+server.ts", '''import { error, json } from "@sveltejs/kit";
import { isValidEmail, startSubscription } from "$lib/subscribe";

export async function POST({ request, url }) {
  const { email } = await request.json();
  if (typeof email !== "string" || !isValidEmail(email)) error(400, "invalid email");
  await startSubscription(email, url.origin);
  return json({ ok: true });
}
''')
    s.write("src/routes/subscribe/+page.svelte", PAGE_FETCH)
    s.say(
        "Страница на рунах (`$state`, `$derived`), форма отправляет JSON в "
        "`POST /api/subscribe` через `fetch`, кнопка неактивна, пока адрес не похож на "
        "email. Дальше сделаю страницу подтверждения `/subscribe/confirm`."
    )
    s.turn_end()
    s.user(
        "Стоп, через fetch не надо. Форма должна работать без JavaScript: заметная часть "
        "читателей открывает сайт из почтовых клиентов и читалок, где JS выключен или режется. "
        "Делай через form actions и use:enhance, как в остальных формах.",
        wait=60,
    )
    s.say(
        "Понял, переделываю на form action: без JS форма отправится обычным POST, а "
        "`use:enhance` просто уберёт перезагрузку, когда JS есть. Эндпоинт `/api/subscribe` "
        "удаляю — он больше никому не нужен."
    )
    s.bash("rm -r src/routes/api/subscribe", "", desc="Удалить JSON-эндпоинт")
    s.write("src/routes/subscribe/+page.server.ts", PAGE_SERVER)
    s.write("src/routes/subscribe/+page.svelte", PAGE_ACTION)
    s.write("src/lib/subscribe.test.ts", TEST.replace("$lib/email", "$lib/subscribe"))
    s.say("Сборка у нас идёт пару минут, тесты тоже не мгновенные — запускаю оба в фоне.")
    build_id = s.bash_bg("pnpm build", "Production-сборка")
    test_id = s.bash_bg("pnpm test:unit -- --run", "Юнит-тесты")
    s.say("Пока идут сборка и тесты, пишу страницу подтверждения.")
    s.write("src/routes/subscribe/confirm/+page.server.ts", '''import { createHash } from "node:crypto";
import { db } from "$lib/db";

export async function load({ url }) {
  const token = url.searchParams.get("t") ?? "";
  const hash = createHash("sha256").update(token).digest("hex");
  const row = await db
    .updateTable("subscriptions")
    .set({ confirmed_at: new Date() })
    .where("token_hash", "=", hash)
    .where("expires_at", ">", new Date())
    .where("confirmed_at", "is", null)
    .returning("email")
    .executeTakeFirst();
  return { confirmed: Boolean(row) };
}
''')
    s.write("src/routes/subscribe/confirm/+page.svelte", '''<script lang="ts">
  let { data } = $props();
</script>

{#if data.confirmed}
  <h1>Готово!</h1>
  <p>Подписка подтверждена. Первое письмо придёт в начале месяца.</p>
{:else}
  <h1>Ссылка устарела</h1>
  <p>Ссылка действует 48 часов. <a href="/subscribe">Подпишитесь ещё раз</a> — пришлём новую.</p>
{/if}
''')
    s.turn_end()
    out_file = s.task_notification(build_id, "Production-сборка", status="failed", exit_code=1, wait=35)
    s.read(out_file, """\

> knizhny-club@0.9.0 build /home/olga/dev/knizhny-club
> vite build

vite v6.1.0 building SSR bundle for production...
transforming...
✓ 412 modules transformed.
x Build failed in 3.84s
error during build:
Cannot import $env/static/private into code that runs in the browser, as this could leak sensitive information.

 src/routes/subscribe/+page.svelte imports
  src/lib/subscribe.ts imports
   src/lib/mailer.ts imports
    $env/static/private

If you're only using the import as a type, change it to `import type`.
 ELIFECYCLE  Command failed with exit code 1.""")
    s.say(
        "Сборка упала, и по делу: `+page.svelte` импортирует `isValidEmail` из "
        "`$lib/subscribe`, а тот же модуль тянет `mailer.ts` с `POSTMARK_TOKEN` из "
        "`$env/static/private`. Vite не может отрезать только одну функцию — весь модуль, "
        "вместе с токеном, попал бы в клиентский бандл.\n\n"
        "Разношу так: чистая проверка адреса — в `src/lib/email.ts` (её можно и на клиенте), "
        "всё, что ходит в базу и почту, — в новую папку `src/lib/server/`. Модули оттуда "
        "SvelteKit не даёт импортировать в браузерный код вообще, даже если они не трогают "
        "`$env`, так что следующий такой импорт отвергнется с понятной ошибкой. `mailer.ts` "
        "туда же переносить не стану без вас — им пользуются ещё три места."
    )
    s.write("src/lib/email.ts", '''const EMAIL = /^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$/;

/** Shape check only; the real check is the confirmation link. Safe for the browser. */
export function isValidEmail(email: string): boolean {
  return EMAIL.test(email.trim());
}
''')
    s.bash("git mv src/lib/subscribe.ts src/lib/server/subscribe.ts && git mv src/lib/subscribe.test.ts src/lib/email.test.ts", "", desc="Перенести серверный модуль")
    s.call(s.read_call("src/lib/server/subscribe.ts", SUBSCRIBE_LIB),
           s.read_call("src/lib/email.test.ts", TEST.replace("$lib/email", "$lib/subscribe")))
    s.edit("src/lib/server/subscribe.ts", '''const EMAIL = /^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$/;

export function isValidEmail(email: string): boolean {
  return EMAIL.test(email.trim());
}

''', "")
    s.edit("src/lib/email.test.ts", 'import { isValidEmail } from "$lib/subscribe";',
           'import { isValidEmail } from "$lib/email";')
    s.edit("src/routes/subscribe/+page.svelte", 'import { isValidEmail } from "$lib/subscribe";',
           'import { isValidEmail } from "$lib/email";')
    s.edit("src/routes/subscribe/+page.server.ts", 'import { isValidEmail, startSubscription } from "$lib/subscribe";',
           'import { isValidEmail } from "$lib/email";\nimport { startSubscription } from "$lib/server/subscribe";')
    s.turn_end()
    test_out = s.task_notification(test_id, "Юнит-тесты", wait=6)
    s.read(test_out, """\

 RUN  v3.0.5 /home/olga/dev/knizhny-club

 ✓ src/lib/subscribe.test.ts (8 tests) 6ms
 ✓ src/lib/reading-lists/sort.test.ts (5 tests) 4ms
 ✓ src/lib/events/rsvp.test.ts (11 tests) 19ms

 Test Files  3 passed (3)
      Tests  24 passed (24)
   Start at  16:31:40
   Duration  1.92s""")
    s.say("Это ещё старый прогон тестов (до переноса), они прошли. Перезапускаю всё уже на "
          "новой раскладке.")
    s.bash("pnpm build 2>&1 | tail -6", """\
.svelte-kit/output/server/entries/pages/subscribe/_page.server.ts.js         1.12 kB
.svelte-kit/output/server/index.js                                          98.77 kB
✓ built in 6.41s

Run npm run preview to preview the production build locally.

> Using @sveltejs/adapter-node
  ✔ done""", desc="Production-сборка", secs=52.0)
    s.bash("pnpm check && pnpm test:unit -- --run 2>&1 | tail -6", """\

> knizhny-club@0.9.0 check /home/olga/dev/knizhny-club
> svelte-kit sync && svelte-check --tsconfig ./tsconfig.json

====================================
svelte-check found 0 errors and 0 warnings
 ✓ src/lib/email.test.ts (8 tests) 5ms

 Test Files  3 passed (3)
      Tests  24 passed (24)""", desc="svelte-check и юнит-тесты", secs=30.0)
    s.bash("grep -rl 'POSTMARK_TOKEN\\|token_hash' .svelte-kit/output/client/ || echo 'в клиентском бандле ничего'", "в клиентском бандле ничего", desc="Токен не утёк в клиент")
    s.say(
        "Готово, сборка и проверки зелёные, в клиентском бандле ни токена Postmark, ни "
        "серверного кода.\n\n"
        "Что получилось:\n"
        "- `/subscribe` — form action + `use:enhance`, без JS работает обычный POST; только "
        "руны.\n"
        "- Double opt-in: в письме токен, в `subscriptions` только его SHA-256, ссылка живёт "
        "48 часов; `/subscribe/confirm` ставит `confirmed_at`.\n"
        "- Серверная логика в `src/lib/server/subscribe.ts`, проверка формы адреса — в "
        "`src/lib/email.ts`.\n"
        "- Миграция `0014_subscriptions.sql` — её ещё нужно применить.\n\n"
        "Чего нет: ограничения частоты на отправку формы. Сейчас бот может подписать тысячи "
        "чужих адресов, и каждому уйдёт письмо — это ударит по репутации домена в Postmark. "
        "Стоит добавить лимит по IP хотя бы в `hooks.server.ts`.\n\n"
        "И вопрос к вам: что делать с неподтверждёнными строками? Они копятся вечно. Удалять "
        "через неделю после истечения токена или хранить для статистики — решать вам (и, "
        "наверное, юристам)."
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "SvelteKit 2 / Svelte 5, whole session in Russian",
        "rules in the first prompt (runes only; double opt-in because of GDPR)",
        "fetch-based form abandoned after the user's rule (must work without JavaScript)",
        "two background commands and their <task-notification>s; the build fails ($env/static/private)",
        "a stale test run finishing after the fix",
        "todo (rate limit) and an open question (unconfirmed rows) at the end",
    ],
    "language": "ru",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["рун", "runes"], ["export let", "writable", "стор"]],
         "note": "В новом коде только Svelte 5 с рунами: никаких export let и writable-сторов."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference", "decision"],
         "match": [["подтвержд", "double opt-in"], ["GDPR", "ЕС", "юрист"]],
         "note": "Подписка только с подтверждением по ссылке из письма: юристы требуют из-за GDPR."},
        {"id": "c3", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["без JavaScript", "без JS"], ["form action", "use:enhance", "почтовых", "читалок"]],
         "note": "Формы должны работать без JavaScript (почтовые клиенты, читалки): form actions + use:enhance."},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "decision"],
         "match": [["fetch", "/api/subscribe"], ["без JavaScript", "без JS", "form action"]],
         "note": "Форма через fetch в /api/subscribe отвергнута: без JS не работает; переделано на form action, эндпоинт удалён."},
        {"id": "d1", "type": "decision",
         "match": [["SHA-256", "sha256", "token_hash"], ["утечёт", "дамп"]],
         "note": "В базе хранится только SHA-256 токена подтверждения (ссылка живёт 48 часов), чтобы утёкший дамп не позволял подтверждать чужие адреса."},
        {"id": "b1", "type": "bug_note", "types": ["bug_note", "decision"],
         "match": [["$env/static/private"], ["lib/server", "клиент", "browser"]],
         "note": "Сборка падала: +page.svelte импортировал $lib/subscribe, который тянул mailer.ts с $env/static/private; серверная часть перенесена в src/lib/server/, проверка адреса в src/lib/email.ts."},
        {"id": "t1", "type": "todo",
         "match": [["частоты", "лимит"], ["IP", "Postmark", "бот"]],
         "note": "Нет ограничения частоты на форму подписки: боты могут слать письма на чужие адреса; добавить лимит по IP в hooks.server.ts."},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo"],
         "match": [["неподтверждённ"]],
         "note": "Что делать с неподтверждёнными строками subscriptions: удалять через неделю или хранить? Решать владельцу/юристам."},
        {"id": "t2", "type": "todo", "required": False,
         "match": [["0014_subscriptions"], ["примен"]],
         "note": "Миграцию 0014_subscriptions.sql ещё нужно применить."},
        {"id": "v1", "type": "verified_command", "command": "pnpm build"},
        {"id": "v2", "type": "verified_command", "command": "pnpm check && pnpm test:unit -- --run"},
        {"id": "v3", "type": "verified_command", "required": False, "command": "pnpm test:unit -- --run"},
    ],
    "secrets": [],
    "forbidden": [["task-notification"], ["output-file"]],
}
