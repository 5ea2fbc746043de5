# ruff: noqa: E501  (verbatim command output and file contents)
"""Fastify + postgres.js: streaming CSV export of payments, no ORM (Russian)."""

from make_sessions import Session

DB_PASSWORD = "Zt8kLq2vR9wXe4Hn"

REPO = '''import { sql } from "../../db";

export type PaymentRow = {
  id: string;
  created_at: Date;
  merchant_id: string;
  payer_name: string;
  amount_kopecks: bigint;
  status: "succeeded" | "refunded" | "failed";
};

export function findPayment(id: string) {
  return sql<PaymentRow[]>`select * from payments where id = ${id}`.then((r) => r[0]);
}

export function listRecent(merchantId: string, limit = 50) {
  return sql<PaymentRow[]>`
    select * from payments
    where merchant_id = ${merchantId}
    order by created_at desc
    limit ${limit}
  `;
}
'''

ROUTES = '''import type { FastifyInstance } from "fastify";
import { findPayment, listRecent } from "./repo";

export async function paymentRoutes(app: FastifyInstance) {
  app.get<{ Params: { id: string } }>("/payments/:id", async (req, reply) => {
    const p = await findPayment(req.params.id);
    return p ?? reply.code(404).send({ error: "not_found" });
  });

  app.get("/payments", async (req) => listRecent(req.merchant.id));
}
'''

EXPORT = '''import { Readable } from "node:stream";
import { sql } from "../../db";
import type { PaymentRow } from "./repo";

const HEADER = "id,created_at,payer_name,amount,status\\n";

function csvLine(p: PaymentRow): string {
  const amount = (Number(p.amount_kopecks) / 100).toFixed(2);
  return [p.id, p.created_at.toISOString(), p.payer_name, amount, p.status].join(",") + "\\n";
}

/** Платежи мерчанта за период потоком, по 1000 строк из курсора. */
export function paymentsCsv(merchantId: string, from: Date, to: Date): Readable {
  const cursor = sql<PaymentRow[]>`
    select id, created_at, payer_name, amount_kopecks, status
    from payments
    where merchant_id = ${merchantId} and created_at >= ${from} and created_at < ${to}
    order by created_at
  `.cursor(1000);

  async function* lines() {
    yield HEADER;
    for await (const batch of cursor) {
      yield batch.map(csvLine).join("");
    }
  }
  return Readable.from(lines());
}
'''

TEST = '''import { describe, expect, it } from "vitest";
import { buildApp } from "../../app";
import { seedPayments, merchantToken } from "../helpers";

describe("GET /reports/payments.csv", () => {
  it("выгружает платежи за период в CSV", async () => {
    const app = await buildApp();
    const merchant = await seedPayments([
      { payer_name: "Иван Петров", amount_kopecks: 150000n, created_at: "2026-03-02T10:00:00Z" },
      { payer_name: 'ООО "Ромашка", филиал №2', amount_kopecks: 99900n, created_at: "2026-03-03T12:30:00Z" },
      { payer_name: "Вне периода", amount_kopecks: 100n, created_at: "2026-04-01T00:00:00Z" },
    ]);
    const res = await app.inject({
      url: "/reports/payments.csv?from=2026-03-01&to=2026-04-01",
      headers: { authorization: `Bearer ${merchantToken(merchant)}` },
    });

    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/csv; charset=utf-8");
    const rows = parseCsv(res.body);
    expect(rows).toHaveLength(3);
    expect(rows[2][2]).toBe('ООО "Ромашка", филиал №2');
    expect(rows.every((r) => r.length === 5)).toBe(true);
  });
});
'''


def build() -> Session:
    s = Session("fastify-export-ru", cwd="/home/dmitry/proj/billing-api", branch="feature/payments-csv",
                start="2026-02-19T14:33:02.118Z", version="2.1.42", slug="sturdy-rowing-fjord")
    s.user(
        "Нужен эндпоинт GET /reports/payments.csv — выгрузка платежей мерчанта за период "
        "(параметры from и to).\n\n"
        "Два правила этого репо: никаких ORM — только SQL через postgres.js, как в остальных "
        "модулях. И любой эндпоинт, который может отдать больше 10 тысяч строк, должен стримить "
        "ответ, а не собирать всё в память.",
        wait=4,
    )
    s.todo([
        ("Посмотреть, как устроены модули payments и подключение к БД", "in_progress", "Изучаю модуль payments"),
        ("Написать выгрузку CSV потоком", "pending", "Пишу выгрузку CSV"),
        ("Интеграционный тест на эндпоинт", "pending", "Пишу интеграционный тест"),
    ])
    s.call(s.read_call("src/modules/payments/repo.ts", REPO),
           s.read_call("src/modules/payments/routes.ts", ROUTES))
    s.bash("cat .env.test && grep -n '\"test' package.json", f"""\
DATABASE_URL=postgres://billing:{DB_PASSWORD}@localhost:5433/billing_test
LOG_LEVEL=warn
  "test": "vitest run --project unit",
  "test:int": "vitest run --project integration",""", desc="Как запускаются тесты")
    s.say(
        "Модули пишут SQL через тег `sql` из `src/db.ts`, интеграционные тесты ходят в "
        "локальный Postgres на 5433.\n\n"
        "По объёму: у крупных мерчантов 300–400 тысяч платежей в месяц, так что выгрузка за "
        "месяц легко превышает ваш порог в 10 тысяч. Собирать всё в массив — это сотни мегабайт "
        "на один запрос, поэтому читаю курсором postgres.js по 1000 строк и отдаю каждую пачку "
        "сразу в `Readable`, который Fastify пишет в ответ по мере чтения."
    )
    s.todo([
        ("Посмотреть, как устроены модули payments и подключение к БД", "completed", "Изучаю модуль payments"),
        ("Написать выгрузку CSV потоком", "in_progress", "Пишу выгрузку CSV"),
        ("Интеграционный тест на эндпоинт", "pending", "Пишу интеграционный тест"),
    ])
    s.write("src/modules/payments/export.ts", EXPORT)
    s.edit("src/modules/payments/routes.ts", '''import { findPayment, listRecent } from "./repo";''',
           '''import { paymentsCsv } from "./export";
import { findPayment, listRecent } from "./repo";''')
    s.edit("src/modules/payments/routes.ts", '''  app.get("/payments", async (req) => listRecent(req.merchant.id));
}''', '''  app.get("/payments", async (req) => listRecent(req.merchant.id));

  app.get<{ Querystring: { from: string; to: string } }>("/reports/payments.csv", async (req, reply) => {
    const from = new Date(req.query.from);
    const to = new Date(req.query.to);
    if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime()) || from >= to) {
      return reply.code(400).send({ error: "invalid_period" });
    }
    reply.header("content-type", "text/csv; charset=utf-8");
    reply.header("content-disposition", `attachment; filename="payments_${req.query.from}_${req.query.to}.csv"`);
    return reply.send(paymentsCsv(req.merchant.id, from, to));
  });
}''')
    s.write("test/integration/payments-export.test.ts", TEST)
    s.bash("PGTZ=UTC pnpm test:int -- payments-export", """\

 RUN  v2.1.8 /home/dmitry/proj/billing-api

 ❯ test/integration/payments-export.test.ts (1 test | 1 failed) 212ms
   × GET /reports/payments.csv > выгружает платежи за период в CSV 207ms
     → expected false to be true // Object.is equality

⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯

 FAIL  test/integration/payments-export.test.ts > GET /reports/payments.csv > выгружает платежи за период в CSV
AssertionError: expected false to be true // Object.is equality

- Expected
+ Received

- true
+ false

 ❯ test/integration/payments-export.test.ts:25:45
     23|     expect(rows).toHaveLength(3);
     24|     expect(rows[2][2]).toBe('ООО "Ромашка", филиал №2');
     25|     expect(rows.every((r) => r.length === 5)).toBe(true);
       |                                             ^
     26|   });
     27| });

 Test Files  1 failed (1)
      Tests  1 failed (1)""", code=1, desc="Интеграционный тест выгрузки", secs=9.0)
    s.think("rows[2][2] passed? parseCsv in helpers probably handles quotes leniently... the "
            "payer name has a comma, my csvLine joins raw values, so the row splits into 6 fields.")
    s.say(
        "Строка с `ООО \"Ромашка\", филиал №2` разваливается на 6 колонок: `csvLine` просто "
        "склеивает значения через запятую, а в названии плательщика есть и запятая, и кавычки. "
        "Нужно экранирование по RFC 4180: поле с запятой, кавычкой или переводом строки "
        "заключается в кавычки, а кавычки внутри удваиваются. Заодно это закрывает CSV-инъекцию "
        "через переносы строк в имени."
    )
    s.edit("src/modules/payments/export.ts", '''function csvLine(p: PaymentRow): string {
  const amount = (Number(p.amount_kopecks) / 100).toFixed(2);
  return [p.id, p.created_at.toISOString(), p.payer_name, amount, p.status].join(",") + "\\n";
}''', '''function csvField(value: string): string {
  return /[",\\r\\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

function csvLine(p: PaymentRow): string {
  const amount = (Number(p.amount_kopecks) / 100).toFixed(2);
  return [p.id, p.created_at.toISOString(), p.payer_name, amount, p.status].map(csvField).join(",") + "\\n";
}''')
    s.bash("PGTZ=UTC pnpm test:int -- payments-export 2>&1 | tail -25", """\

 RUN  v2.1.8 /home/dmitry/proj/billing-api

 ✓ test/integration/payments-export.test.ts (1 test) 188ms

 Test Files  1 passed (1)
      Tests  1 passed (1)
   Start at  15:02:44
   Duration  1.41s""", desc="Интеграционный тест выгрузки", secs=8.0)
    s.bash("pnpm tsc --noEmit && pnpm lint", """\

> billing-api@1.14.0 lint /home/dmitry/proj/billing-api
> eslint . --max-warnings 0

""", desc="Типы и линтер", secs=18.0)
    s.todo([
        ("Посмотреть, как устроены модули payments и подключение к БД", "completed", "Изучаю модуль payments"),
        ("Написать выгрузку CSV потоком", "completed", "Пишу выгрузку CSV"),
        ("Интеграционный тест на эндпоинт", "completed", "Пишу интеграционный тест"),
        ("Ограничить максимальный период выгрузки (сейчас можно запросить хоть 5 лет)", "pending",
         "Ограничиваю период выгрузки"),
    ])
    s.say(
        "Готово:\n\n"
        "- `src/modules/payments/export.ts` — SQL через postgres.js, курсор по 1000 строк, "
        "`Readable` прямо в ответ; память не растёт с размером выгрузки.\n"
        "- `GET /reports/payments.csv?from=…&to=…` в `routes.ts`: 400 на неверный период, "
        "`text/csv; charset=utf-8`, имя файла с периодом.\n"
        "- Поля экранируются по RFC 4180 (запятые, кавычки, переводы строк).\n"
        "- Интеграционный тест, `tsc` и `eslint` зелёные.\n\n"
        "Не сделано: период никак не ограничен — запрос за пять лет будет честно стримиться "
        "минутами и держать соединение с БД. Стоит ограничить, например, 92 днями; оставил в "
        "списке задач, потому что лимит — продуктовое решение."
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Russian user and replies",
        "rules (no ORM; stream above 10k rows)",
        "TodoWrite progress with a pending item left",
        "decision with its why (cursor)",
        "CSV escaping bug: vitest failure (exit 1) then pass",
        "env prefix (PGTZ=UTC)",
        "database password in tool output",
    ],
    "language": "ru",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["ORM"], ["postgres.js", "SQL"]],
         "note": "Никаких ORM в этом репо — только SQL через postgres.js."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["10 тысяч"], ["стрим"]],
         "note": "Эндпоинт, который может отдать больше 10 тысяч строк, должен стримить ответ, "
                 "а не собирать всё в память."},
        {"id": "d1", "type": "decision",
         "match": [["курсор", "cursor"], ["памят", "300"]],
         "note": "Выгрузка читает курсором postgres.js по 1000 строк и стримит в ответ, потому что "
                 "у крупных мерчантов 300–400 тысяч платежей в месяц."},
        {"id": "b1", "type": "bug_note",
         "match": [["RFC 4180", "экранир", "кавыч"], ["запят", "колон"]],
         "note": "CSV разваливался на плательщике с запятой и кавычками; поля экранируются по RFC 4180."},
        {"id": "t1", "type": "todo", "types": ["todo", "open_question"],
         "match": [["период"], ["огранич"]],
         "note": "Ограничить максимальный период выгрузки (например 92 дня) — продуктовое решение."},
        {"id": "v1", "type": "verified_command", "command": "PGTZ=UTC pnpm test:int -- payments-export"},
        {"id": "v2", "type": "verified_command", "command": "pnpm tsc --noEmit && pnpm lint"},
    ],
    "secrets": [DB_PASSWORD],
    "forbidden": [],
}
