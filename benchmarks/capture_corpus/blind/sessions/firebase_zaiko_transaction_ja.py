# ruff: noqa: E501  (verbatim command output and file contents)
"""Cloud Functions v2 + Firestore: stock goes negative during a sale (read-then-update race); increment tried and fails the concurrency test; AskUserQuestion: whole order fails; runTransaction; Friday deploy rejected (Japanese)."""

from make_sessions import Session

ORDERS_TS = '''import { onCall, HttpsError } from "firebase-functions/v2/https";
import { getFirestore, FieldValue } from "firebase-admin/firestore";

const db = getFirestore();

type Item = { productId: string; qty: number; price: number };

export const createOrder = onCall({ region: "asia-northeast1", maxInstances: 10 }, async (req) => {
  if (!req.auth) throw new HttpsError("unauthenticated", "ログインが必要です");
  const items = req.data.items as Item[];

  for (const item of items) {
    const ref = db.collection("products").doc(item.productId);
    const snap = await ref.get();
    const stock = snap.get("stock") as number;
    if (stock < item.qty) {
      throw new HttpsError("failed-precondition", `在庫不足: ${item.productId}`);
    }
    await ref.update({ stock: FieldValue.increment(-item.qty) });
  }

  const total = items.reduce((sum, i) => sum + i.price * i.qty, 0);
  const order = await db.collection("orders").add({
    uid: req.auth.uid,
    items,
    total,
    status: "received",
    createdAt: FieldValue.serverTimestamp(),
  });
  return { orderId: order.id };
});
'''

TEST_TS = '''import { describe, it, expect, beforeEach } from "vitest";
import { getFirestore } from "firebase-admin/firestore";
import { callCreateOrder, resetEmulator } from "./helpers";

const db = getFirestore();

describe("createOrder", () => {
  beforeEach(resetEmulator);

  it("在庫を減らして注文を作る", async () => {
    await db.doc("products/tea-01").set({ name: "ほうじ茶 100g", stock: 10, price: 980 });
    const res = await callCreateOrder("u1", [{ productId: "tea-01", qty: 2, price: 980 }]);
    expect(res.orderId).toBeTruthy();
    expect((await db.doc("products/tea-01").get()).get("stock")).toBe(8);
  });

  it("在庫不足ならエラー", async () => {
    await db.doc("products/tea-01").set({ name: "ほうじ茶 100g", stock: 1, price: 980 });
    await expect(callCreateOrder("u1", [{ productId: "tea-01", qty: 2, price: 980 }])).rejects.toThrow("在庫不足");
  });
});
'''


def build() -> Session:
    s = Session("firebase-zaiko-transaction-ja", cwd="/Users/aoki/dev/chaya-shop", branch="fix/stock-race",
                start="2026-11-06T07:48:33.520Z", version="2.1.81", slug="firestore-stock-transaction")
    s.user(
        "昨日のセールで在庫がマイナスになった商品が3つあった（-4, -2, -7）。注文は Cloud Functions の createOrder。見てもらえますか。"
        "あ、関数は全部 asia-northeast1 で。us-central1 だと東京の Firestore との往復で遅くなるので",
        wait=6,
    )
    s.call(s.read_call("functions/src/orders.ts", ORDERS_TS), s.read_call("functions/test/orders.test.ts", TEST_TS))
    s.say(
        "原因はここです:\n\n"
        "```ts\nconst snap = await ref.get();\nconst stock = snap.get(\"stock\");\nif (stock < item.qty) throw ...\n"
        "await ref.update({ stock: FieldValue.increment(-item.qty) });\n```\n\n"
        "減算は `increment` でアトミックですが、その前の在庫チェックは別の読み取りです。在庫 3 のところに qty 2 の注文が 2 件同時に"
        "来ると、両方とも「3 ≥ 2」で通り、両方の `increment(-2)` が適用されて在庫は -1 になります。\n\n"
        "まず同時注文を再現するテストを書きます。トランザクションにする前に、手軽な案として「減らした後に読み直して、マイナスなら"
        "戻して失敗にする」補償方式を試します。"
    )
    s.edit("functions/test/orders.test.ts", '''  it("在庫不足ならエラー", async () => {''', '''  it("同時注文でも在庫はマイナスにならない", async () => {
    await db.doc("products/tea-01").set({ name: "ほうじ茶 100g", stock: 5, price: 980 });
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => callCreateOrder(`u${i}`, [{ productId: "tea-01", qty: 1, price: 980 }])),
    );
    const ok = results.filter((r) => r.status === "fulfilled").length;
    const stock = (await db.doc("products/tea-01").get()).get("stock");
    expect(stock).toBe(0);
    expect(ok).toBe(5);
  });

  it("在庫不足ならエラー", async () => {''')
    s.edit("functions/src/orders.ts", '''    await ref.update({ stock: FieldValue.increment(-item.qty) });
  }''', '''    await ref.update({ stock: FieldValue.increment(-item.qty) });
    const after = (await ref.get()).get("stock") as number;
    if (after < 0) {
      await ref.update({ stock: FieldValue.increment(item.qty) }); // 戻す
      throw new HttpsError("failed-precondition", `在庫不足: ${item.productId}`);
    }
  }''')
    s.bash("npm run build && firebase emulators:exec --only firestore \"npm test\"", '''> functions@1.0.0 build
> tsc

i  emulators: Starting emulators: firestore
i  firestore: Firestore Emulator logging to firestore-debug.log
✔  firestore: Firestore Emulator UI websocket is running on 9150.
i  Running script: npm test

> functions@1.0.0 test
> vitest run

 RUN  v2.1.4 /Users/aoki/dev/chaya-shop/functions

 ❯ test/orders.test.ts (3 tests | 1 failed) 2218ms
   ✓ createOrder > 在庫を減らして注文を作る 412ms
   × createOrder > 同時注文でも在庫はマイナスにならない 1533ms
     → expected 3 to be +0 // Object.is equality
   ✓ createOrder > 在庫不足ならエラー 203ms

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯

 FAIL  test/orders.test.ts > createOrder > 同時注文でも在庫はマイナスにならない
AssertionError: expected 3 to be +0 // Object.is equality

- Expected
+ Received

- 0
+ 3

 ❯ test/orders.test.ts:27:19

 Test Files  1 failed (1)
      Tests  1 failed | 2 passed (3)
   Start at  16:55:02
   Duration  3.01s
⚠  Script exited unsuccessfully (code 1)
i  emulators: Shutting down emulators.
Error: Script "npm test" exited with code 1''', code=1, desc="ビルド + エミュレータでテスト", secs=28)
    s.say(
        "補償方式はダメでした。マイナスにはなりませんが、在庫 3 が売れ残りました（5 個あって成功したのは 2 件だけ）。20 件が"
        "同時に減らすと一瞬大きくマイナスになり、その瞬間に読み直した注文は、本当は在庫があったのに全部「在庫不足」で戻して"
        "しまいます。セールで売れるはずの注文を断ることになるので使えません。元に戻します。\n\n"
        "チェックと減算を一緒にするには `runTransaction` が必要です。ひとつ仕様を確認させてください。"
    )
    q = "複数商品の注文で、一部の商品だけ在庫が足りない場合はどうしますか？"
    s.ask(
        [{"question": q, "header": "在庫不足時",
          "options": [("注文全体を失敗", "どれか 1 つでも足りなければ何も減らさずエラー"),
                      ("在庫のある分だけ受注", "足りない商品を除いて注文を作り、除いた商品を返す")]}],
        {q: "注文全体を失敗にしてください。部分出荷は倉庫が対応できない（ピッキングリストが注文単位なので）"},
    )
    s.edit("functions/src/orders.ts", '''  for (const item of items) {
    const ref = db.collection("products").doc(item.productId);
    const snap = await ref.get();
    const stock = snap.get("stock") as number;
    if (stock < item.qty) {
      throw new HttpsError("failed-precondition", `在庫不足: ${item.productId}`);
    }
    await ref.update({ stock: FieldValue.increment(-item.qty) });
    const after = (await ref.get()).get("stock") as number;
    if (after < 0) {
      await ref.update({ stock: FieldValue.increment(item.qty) }); // 戻す
      throw new HttpsError("failed-precondition", `在庫不足: ${item.productId}`);
    }
  }

  const total = items.reduce((sum, i) => sum + i.price * i.qty, 0);
  const order = await db.collection("orders").add({
    uid: req.auth.uid,
    items,
    total,
    status: "received",
    createdAt: FieldValue.serverTimestamp(),
  });
  return { orderId: order.id };''', '''  // 在庫チェックと減算は同じトランザクションで（読んでから書くと同時注文で在庫がマイナスになる）。
  // 1 商品でも足りなければ注文全体を失敗にする: 倉庫のピッキングリストが注文単位で、部分出荷できない。
  const uid = req.auth.uid;
  const orderRef = db.collection("orders").doc();
  await db.runTransaction(async (tx) => {
    const refs = items.map((i) => db.collection("products").doc(i.productId));
    const snaps = await tx.getAll(...refs); // トランザクション内では読み取りを先に全部済ませる
    snaps.forEach((snap, n) => {
      if ((snap.get("stock") as number) < items[n].qty) {
        throw new HttpsError("failed-precondition", `在庫不足: ${items[n].productId}`);
      }
    });
    snaps.forEach((snap, n) => tx.update(refs[n], { stock: FieldValue.increment(-items[n].qty) }));

    const total = items.reduce((sum, i) => sum + i.price * i.qty, 0);
    tx.set(orderRef, { uid, items, total, status: "received", createdAt: FieldValue.serverTimestamp() });
  });
  return { orderId: orderRef.id };''')
    s.edit("functions/test/orders.test.ts", '''  it("在庫不足ならエラー", async () => {''', '''  it("一部の商品が足りなければ何も減らさない", async () => {
    await db.doc("products/tea-01").set({ name: "ほうじ茶 100g", stock: 5, price: 980 });
    await db.doc("products/cup-02").set({ name: "湯呑み 白", stock: 0, price: 1650 });
    await expect(
      callCreateOrder("u1", [
        { productId: "tea-01", qty: 2, price: 980 },
        { productId: "cup-02", qty: 1, price: 1650 },
      ]),
    ).rejects.toThrow("在庫不足: cup-02");
    expect((await db.doc("products/tea-01").get()).get("stock")).toBe(5);
  });

  it("在庫不足ならエラー", async () => {''')
    s.bash("npm run build && firebase emulators:exec --only firestore \"npm test\"", '''> functions@1.0.0 build
> tsc

i  emulators: Starting emulators: firestore
i  firestore: Firestore Emulator logging to firestore-debug.log
✔  firestore: Firestore Emulator UI websocket is running on 9150.
i  Running script: npm test

> functions@1.0.0 test
> vitest run

 RUN  v2.1.4 /Users/aoki/dev/chaya-shop/functions

 ✓ test/orders.test.ts (4 tests) 3874ms

 Test Files  1 passed (1)
      Tests  4 passed (4)
   Start at  17:06:41
   Duration  4.62s
✔  Script exited successfully (code 0)
i  emulators: Shutting down emulators.''', desc="ビルド + エミュレータでテスト", secs=30)
    s.say(
        "4 件とも通りました。20 件同時で在庫 5 → ちょうど 5 件成功、在庫 0。一部在庫切れの注文は何も減らしません。\n\n"
        "ついでに気づいたことがあります: `total` を**クライアントから送られた `price`** で計算しています。アプリを改造すれば 1 円で"
        "注文できてしまいます。トランザクション内で読んだ `products` の `price` を使うべきです。直しましょうか？"
    )
    s.turn_end()
    s.user("え、それまずいですね…でも今日は在庫の件だけにしたいので、価格のほうは別チケットで。月曜に切ります。今日のはデプロイまでお願いします", wait=60)
    s.bash_rejected("firebase deploy --only functions:createOrder", desc="createOrder をデプロイ",
                    reason="すみません、やっぱり金曜の夕方はデプロイしないルールでした。何かあっても週末誰も見られないので。月曜の朝に自分でやります")
    s.say("了解です。デプロイはしません。コミットだけしておきます。")
    s.bash("git add -A && git commit -qm 'createOrder: 在庫チェックと減算を runTransaction に（同時注文で在庫マイナス）' && git log --oneline -1",
           "8c13e5a createOrder: 在庫チェックと減算を runTransaction に（同時注文で在庫マイナス）", desc="コミット")
    s.say(
        "まとめ:\n\n"
        "- **原因**: 在庫チェック（`get()`）と減算（`increment`）が別々で、同時注文が両方ともチェックを通る。\n"
        "- **試してダメだったもの**: 減らした後に読み直してマイナスなら戻す補償方式 — マイナスにはならないが、20 件同時で在庫 3 "
        "が売れ残った（在庫があるのに断る）。\n"
        "- **修正**: `runTransaction` で全商品を `getAll` → チェック → 減算 → 注文作成。1 商品でも足りなければ注文全体を失敗"
        "（倉庫のピッキングが注文単位のため）。\n"
        "- テスト 4 件（同時注文、一部在庫切れ）、`npm run build && firebase emulators:exec --only firestore \"npm test\"` で緑。\n\n"
        "未対応: クライアント送信の `price` で合計を計算している問題（別チケット）。デプロイは月曜。マイナスになった 3 商品の在庫数は"
        "手で直す必要があります。"
    )
    s.turn_end()
    s.user(
        "ありがとうございます。マイナスの3商品は倉庫に実数を数えてもらってから直します。あとセールの時 maxInstances 10 で足りてたのかよく分からないので、山田さんに聞いてみます",
        wait=90,
    )
    s.say("承知しました。トランザクションの競合リトライで 1 リクエストあたりの時間は少し伸びるので、その点も山田さんに伝えておくとよさそうです。")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Cloud Functions v2 (TypeScript, onCall) + Firestore, emulator tests with vitest, Japanese",
        "a rule given in passing with its reason (all functions in asia-northeast1, latency to the Tokyo Firestore)",
        "check (get) and increment not atomic, stock goes negative; a concurrency test",
        "a compensating re-read-and-undo tried, the emulator run fails in the middle of the output (3 left unsold), dropped",
        "AskUserQuestion answered in free text: the whole order fails, with the why (picking list per order); runTransaction",
        "client-sent price used for the total found, deferred by the user to a separate ticket",
        "Friday-evening deploy rejected with a rule; wrap-up with leftovers; question for a colleague (maxInstances)",
    ],
    "language": "ja",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["asia-northeast1"], ["us-central1", "遅"]],
         "note": "関数は全部 asia-northeast1。us-central1 だと東京の Firestore との往復で遅い。"},
        {"id": "b1", "type": "bug_note",
         "match": [["在庫"], ["マイナス"], ["runTransaction", "トランザクション"]],
         "note": "createOrder は在庫チェック（get）と increment が別々で、同時注文で在庫がマイナスに；runTransaction でチェックと減算を一緒に。"},
        {"id": "f1", "type": "failed_attempt",
         "match": [["補償", "戻す"], ["売れ残"]],
         "note": "減らした後に読み直してマイナスなら戻す補償方式はダメ：20 件同時で在庫 3 が売れ残った（在庫があるのに断る）。"},
        {"id": "d1", "type": "decision",
         "match": [["注文全体", "全体を失敗"], ["ピッキング", "倉庫", "部分出荷"]],
         "note": "一部の商品が在庫不足なら注文全体を失敗にする：倉庫のピッキングリストが注文単位で部分出荷できない。"},
        {"id": "b2", "type": "bug_note", "types": ["bug_note", "todo"],
         "match": [["price"], ["クライアント"]],
         "note": "合計金額をクライアントが送る price で計算している（改造アプリで 1 円注文可能）；別チケットで直す。"},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["金曜"], ["デプロイ"]],
         "note": "金曜の夕方はデプロイしない（週末に誰も見られない）。createOrder は月曜の朝に青木さんがデプロイ。"},
        {"id": "t1", "type": "todo",
         "match": [["価格", "price"], ["月曜", "チケット"]],
         "note": "価格の件は月曜にチケットを切る。"},
        {"id": "t2", "type": "todo", "required": False,
         "match": [["マイナス", "3商品"], ["倉庫", "実数"]],
         "note": "マイナスになった 3 商品は倉庫に実数を数えてもらってから直す。"},
        {"id": "q1", "type": "open_question",
         "match": [["maxInstances"], ["山田"]],
         "note": "セール時に maxInstances 10 で足りていたのか？山田さんに聞く。"},
        {"id": "v1", "type": "verified_command", "command": "npm run build && firebase emulators:exec --only firestore \"npm test\""},
    ],
    "secrets": [],
    "forbidden": [["doesn't want to proceed"], ["User has answered"]],
}
