# ruff: noqa: E501  (verbatim command output and file contents)
"""Express + Prisma clinic API: booking a doctor's slot (Indonesian session, casual, with
English technical words as Indonesian developers write them)."""

from make_sessions import Session

SCHEMA = '''generator client {
  provider = "prisma-client-js"
}

datasource db {
  provider = "postgresql"
  url      = env("DATABASE_URL")
}

model Dokter {
  id        Int       @id @default(autoincrement())
  nama      String
  poli      String
  bookings  Booking[]
}

model Pasien {
  id        Int       @id @default(autoincrement())
  nama      String
  noHp      String
  bookings  Booking[]
}

model Booking {
  id        Int      @id @default(autoincrement())
  dokter    Dokter   @relation(fields: [dokterId], references: [id])
  dokterId  Int
  pasien    Pasien   @relation(fields: [pasienId], references: [id])
  pasienId  Int
  slot      DateTime
  createdAt DateTime @default(now())
}
'''

APP = '''import express from "express";
import { dokterRouter } from "./routes/dokter";

export const app = express();
app.use(express.json());
app.use("/dokter", dokterRouter);
'''

BOOKING_V1 = '''import { Router } from "express";
import { prisma } from "../db";

export const bookingRouter = Router();

bookingRouter.post("/", async (req, res) => {
  const { dokterId, pasienId, slot } = req.body;
  const booking = await prisma.$transaction(async (tx) => {
    const ada = await tx.booking.findFirst({ where: { dokterId, slot: new Date(slot) } });
    if (ada) return null;
    return tx.booking.create({ data: { dokterId, pasienId, slot: new Date(slot) } });
  });
  if (!booking) return res.status(409).json({ error: "slot sudah terisi" });
  res.status(201).json(booking);
});
'''

BOOKING_TEST = '''import request from "supertest";
import { app } from "../src/app";
import { prisma } from "../src/db";

const slot = "2026-04-07T09:00:00+07:00";

beforeEach(async () => {
  await prisma.booking.deleteMany();
});

test("booking slot kosong -> 201", async () => {
  const res = await request(app).post("/booking").send({ dokterId: 1, pasienId: 1, slot });
  expect(res.status).toBe(201);
});

test("dua booking bersamaan di slot yang sama -> cuma satu yang masuk", async () => {
  const [a, b] = await Promise.all([
    request(app).post("/booking").send({ dokterId: 1, pasienId: 1, slot }),
    request(app).post("/booking").send({ dokterId: 1, pasienId: 2, slot }),
  ]);
  expect([a.status, b.status].sort()).toEqual([201, 409]);
  expect(await prisma.booking.count()).toBe(1);
});
'''


def build() -> Session:
    s = Session("express-booking-id", cwd="/home/dimas/kerja/klinik-api", branch="fitur/booking",
                start="2026-04-06T02:41:12.304Z", version="2.1.52", slug="quiet-sailing-mango")
    s.user(
        "halo, tolong bikinin endpoint POST /booking buat pasien pesan jadwal dokter. pakai "
        "prisma yang udah ada aja ya, jangan nambah ORM atau query builder lain, tim backend "
        "udah sepakat satu ORM aja biar gampang maintain.\n\nsatu slot dokter cuma boleh diisi "
        "satu pasien.",
        wait=4,
    )
    s.think("Look at the Prisma schema and the app to see how routes are mounted.")
    s.call(s.read_call("prisma/schema.prisma", SCHEMA), s.read_call("src/app.ts", APP))
    s.say(
        "Oke. Modelnya `Booking` udah ada (dokterId, pasienId, slot). Aku bikin router baru di "
        "`src/routes/booking.ts`: cek dulu slotnya di dalam `prisma.$transaction`, kalau kosong "
        "baru `create`, kalau udah terisi jawab 409. Tesnya pakai supertest, termasuk dua request "
        "bersamaan ke slot yang sama."
    )
    s.call(s.write_call("src/routes/booking.ts", BOOKING_V1),
           s.write_call("tests/booking.test.ts", BOOKING_TEST))
    s.edit("src/app.ts", '''import { dokterRouter } from "./routes/dokter";''',
           '''import { dokterRouter } from "./routes/dokter";
import { bookingRouter } from "./routes/booking";''')
    s.edit("src/app.ts", '''app.use("/dokter", dokterRouter);''', '''app.use("/dokter", dokterRouter);
app.use("/booking", bookingRouter);''')
    s.bash("npm test -- tests/booking.test.ts 2>&1 | tail -25", """\
> klinik-api@0.4.0 test
> jest tests/booking.test.ts

 FAIL  tests/booking.test.ts
  ✓ booking slot kosong -> 201 (212 ms)
  ✕ dua booking bersamaan di slot yang sama -> cuma satu yang masuk (96 ms)

  ● dua booking bersamaan di slot yang sama -> cuma satu yang masuk

    expect(received).toEqual(expected) // deep equality

    - Expected  - 1
    + Received  + 1

      Array [
        201,
    -   409,
    +   201,
      ]

      27 |   ]);
    > 28 |   expect([a.status, b.status].sort()).toEqual([201, 409]);

Tests:       1 failed, 1 passed, 2 total""", code=1, desc="Jalankan tes booking", secs=7.0)
    s.say(
        "Nah, ini yang aku khawatirkan: dua-duanya dapat 201, jadi slotnya keisi dua pasien. "
        "`findFirst` lalu `create` di dalam `$transaction` tetap nggak aman — isolation level "
        "default Postgres (READ COMMITTED) nggak mencegah dua transaksi sama-sama lihat slot "
        "kosong lalu sama-sama insert.\n\nCara yang bener: biar database yang jaga. Aku tambah "
        "unique constraint `@@unique([dokterId, slot])` di model `Booking`, jadi insert kedua "
        "pasti ditolak Postgres, seberapa pun bersamaannya request-nya. Cek manual di kode "
        "aku buang."
    )
    s.edit("prisma/schema.prisma", '''  slot      DateTime
  createdAt DateTime @default(now())
}''', '''  slot      DateTime
  createdAt DateTime @default(now())

  @@unique([dokterId, slot])
}''')
    s.bash("npx prisma migrate dev --name booking_slot_unik", """\
Environment variables loaded from .env
Prisma schema loaded from prisma/schema.prisma
Datasource "db": PostgreSQL database "klinik_dev", schema "public" at "localhost:5432"

Applying migration `20260406025512_booking_slot_unik`

The following migration(s) have been created and applied from new schema changes:

migrations/
  └─ 20260406025512_booking_slot_unik/
    └─ migration.sql

Your database is now in sync with your schema.

✔ Generated Prisma Client (v5.22.0) to ./node_modules/@prisma/client in 96ms""",
           desc="Migrasi unique constraint", secs=9.0)
    s.edit("src/routes/booking.ts", '''  const booking = await prisma.$transaction(async (tx) => {
    const ada = await tx.booking.findFirst({ where: { dokterId, slot: new Date(slot) } });
    if (ada) return null;
    return tx.booking.create({ data: { dokterId, pasienId, slot: new Date(slot) } });
  });
  if (!booking) return res.status(409).json({ error: "slot sudah terisi" });
  res.status(201).json(booking);''', '''  const booking = await prisma.booking.create({
    data: { dokterId, pasienId, slot: new Date(slot) },
  });
  res.status(201).json(booking);''')
    s.bash("npm test -- tests/booking.test.ts 2>&1 | tail -25", """\
> klinik-api@0.4.0 test
> jest tests/booking.test.ts

 FAIL  tests/booking.test.ts
  ✓ booking slot kosong -> 201 (198 ms)
  ✕ dua booking bersamaan di slot yang sama -> cuma satu yang masuk (141 ms)

  ● dua booking bersamaan di slot yang sama -> cuma satu yang masuk

    expect(received).toEqual(expected) // deep equality

      Array [
        201,
    -   409,
    +   500,
      ]

  console.error
    PrismaClientKnownRequestError:
    Invalid `prisma.booking.create()` invocation:
    Unique constraint failed on the fields: (`dokterId`,`slot`)
      code: 'P2002'

Tests:       1 failed, 1 passed, 2 total""", code=1, desc="Jalankan tes booking", secs=7.0)
    s.say(
        "Sekarang database-nya udah nolak booking kedua (cuma satu baris yang masuk), tapi "
        "error Prisma `P2002` belum ditangkap, jadi Express jawab 500. Aku tangkap `P2002` di "
        "route dan jawab 409."
    )
    s.edit("src/routes/booking.ts", '''import { Router } from "express";
import { prisma } from "../db";''', '''import { Router } from "express";
import { Prisma } from "@prisma/client";
import { prisma } from "../db";''')
    s.edit("src/routes/booking.ts", '''  const booking = await prisma.booking.create({
    data: { dokterId, pasienId, slot: new Date(slot) },
  });
  res.status(201).json(booking);''', '''  try {
    const booking = await prisma.booking.create({
      data: { dokterId, pasienId, slot: new Date(slot) },
    });
    res.status(201).json(booking);
  } catch (e) {
    if (e instanceof Prisma.PrismaClientKnownRequestError && e.code === "P2002") {
      return res.status(409).json({ error: "slot sudah terisi" });
    }
    throw e;
  }''')
    s.bash("npm test -- tests/booking.test.ts 2>&1 | tail -25", """\
> klinik-api@0.4.0 test
> jest tests/booking.test.ts

 PASS  tests/booking.test.ts
  ✓ booking slot kosong -> 201 (187 ms)
  ✓ dua booking bersamaan di slot yang sama -> cuma satu yang masuk (118 ms)

Tests:       2 passed, 2 total""", desc="Jalankan tes booking", secs=6.0)
    s.say("Hijau. Dua request bersamaan: satu 201, satu 409, dan cuma satu baris di tabel.")
    s.turn_end()
    s.user(
        "mantap. oh iya satu lagi, mulai sekarang semua response error harus formatnya "
        "{ error: { code, message } } ya, jangan string doang. frontend udah nungguin format "
        "itu buat nampilin pesan ke user.\n\nterus kalau bisa tes tetap pakai supertest kayak "
        "gini, aku lebih suka daripada manggil handler langsung.",
        wait=95,
    )
    s.say("Siap. Aku ubah jawaban 409-nya ke format itu, dengan `code` yang bisa dibaca "
          "frontend.")
    s.edit("src/routes/booking.ts",
           '''      return res.status(409).json({ error: "slot sudah terisi" });''',
           '''      return res.status(409).json({
        error: { code: "SLOT_TERISI", message: "Slot dokter ini sudah terisi" },
      });''')
    s.edit("tests/booking.test.ts",
           '''  expect([a.status, b.status].sort()).toEqual([201, 409]);''',
           '''  expect([a.status, b.status].sort()).toEqual([201, 409]);
  const ditolak = a.status === 409 ? a : b;
  expect(ditolak.body.error.code).toBe("SLOT_TERISI");''')
    s.bash("npm test 2>&1 | tail -15", """\
> klinik-api@0.4.0 test
> jest

 PASS  tests/dokter.test.ts
 PASS  tests/booking.test.ts

Tests:       9 passed, 9 total
Snapshots:   0 total
Time:        3.904 s""", desc="Semua tes", secs=8.0)
    s.say(
        "Beres:\n\n"
        "- `POST /booking` di `src/routes/booking.ts`; slot ganda dicegah oleh unique "
        "constraint `@@unique([dokterId, slot])` (migrasi `booking_slot_unik`), bukan cek di "
        "kode, karena cek `findFirst` di dalam transaksi tetap lolos dua-duanya kalau "
        "bersamaan.\n"
        "- `P2002` dari Prisma dijawab 409 dengan `{ error: { code: \"SLOT_TERISI\", message } }`.\n"
        "- Semua tes hijau (9).\n\n"
        "Yang belum: notifikasi WhatsApp ke pasien setelah booking belum dibuat, masih nunggu "
        "API key WhatsApp Business dari tim ops.\n\n"
        "Satu hal yang perlu kamu putuskan: slot yang dibatalkan pasien boleh langsung dipesan "
        "orang lain, atau harus nunggu 15 menit dulu (biar pasien yang batal nggak sengaja "
        "masih bisa balik)? Sekarang belum ada fitur batal sama sekali."
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "whole session in casual Indonesian, English technical words mixed in",
        "a one-ORM rule with its why, and a domain rule, in the first prompt",
        "check-then-insert in a transaction still double-books (failed attempt), replaced by a "
        "unique constraint (decision with its why)",
        "Prisma P2002 answered 500 until caught (bug with the error line)",
        "a lasting error-format rule and a testing preference in a later prompt",
        "todo and open question at the end",
    ],
    "language": "id",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["prisma"], ["ORM"]],
         "note": "Pakai Prisma yang sudah ada, jangan tambah ORM atau query builder lain: tim "
                 "backend sepakat satu ORM biar gampang maintain."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["response error", "error"], ["code"], ["message"]],
         "note": "Mulai sekarang semua response error berformat { error: { code, message } }, "
                 "bukan string; frontend menunggu format itu."},
        {"id": "p1", "type": "preference", "types": ["preference", "constraint"],
         "match": [["supertest"]],
         "note": "Tes pakai supertest, lebih disukai daripada memanggil handler langsung."},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "bug_note", "decision"],
         "match": [["findFirst"], ["transaction", "transaksi", "READ COMMITTED", "bersamaan"]],
         "note": "Cek findFirst lalu create di dalam prisma.$transaction tetap membiarkan dua "
                 "booking bersamaan masuk (READ COMMITTED)."},
        {"id": "d1", "type": "decision", "types": ["decision", "bug_note"],
         "match": [["@@unique", "unique constraint"], ["bersamaan", "database", "Postgres"]],
         "note": "Slot ganda dicegah unique constraint @@unique([dokterId, slot]) di database, "
                 "bukan cek di kode, karena request bersamaan lolos cek di kode."},
        {"id": "b1", "type": "bug_note", "types": ["bug_note", "decision"],
         "match": [["P2002", "Unique constraint failed"], ["409"]],
         "note": "Error Prisma P2002 (Unique constraint failed) belum ditangkap sehingga Express "
                 "menjawab 500; sekarang dijawab 409."},
        {"id": "t1", "type": "todo",
         "match": [["WhatsApp"], ["API key", "notifikasi"]],
         "note": "Notifikasi WhatsApp ke pasien setelah booking belum dibuat, menunggu API key "
                 "WhatsApp Business dari tim ops."},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo"],
         "match": [["dibatalkan", "batal"], ["15 menit"]],
         "note": "Slot yang dibatalkan boleh langsung dipesan lagi atau harus menunggu 15 menit? "
                 "Belum diputuskan; fitur batal belum ada."},
        {"id": "x1", "type": "constraint", "required": False,
         "match": [["satu slot", "satu pasien"]],
         "note": "Satu slot dokter hanya boleh diisi satu pasien."},
        {"id": "v1", "type": "verified_command", "command": "npm test -- tests/booking.test.ts"},
        {"id": "v2", "type": "verified_command", "command": "npm test"},
        {"id": "v3", "type": "verified_command", "required": False,
         "command": "npx prisma migrate dev --name booking_slot_unik"},
    ],
    "secrets": [],
    "forbidden": [],
}
