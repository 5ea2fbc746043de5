# ruff: noqa: E501  (verbatim command output and file contents)
"""Nuxt 3 hydration mismatch from server-side date formatting (UTC vs JST); <ClientOnly> rejected; "24:30" from hour12:false; compaction (Japanese)."""

from make_sessions import Session

ORDER_CARD = '''<script setup lang="ts">
import type { Order } from "~/types/order";

const props = defineProps<{ order: Order }>();
const orderedAt = computed(() => new Date(props.order.orderedAt).toLocaleString("ja-JP"));
</script>

<template>
  <div class="order-card">
    <span class="order-date">{{ orderedAt }}</span>
    <span class="order-total">{{ order.totalYen.toLocaleString("ja-JP") }}円</span>
  </div>
</template>
'''

WARN = '''[Vue warn]: Hydration text content mismatch on <span class="order-date">
  - rendered on server: 2026/3/31 15:30:00
  - expected on client: 2026/4/1 0:30:00
  at <OrderCard order= {id: 'A-10293', orderedAt: '2026-03-31T15:30:00Z', totalYen: 12800} >
  at <Orders>'''

DATE_TS = '''// 表示は常に JST（海外のお客さんもいるのでブラウザの TZ には頼らない）。
// サーバー（Vercel は UTC）とクライアントで同じ文字列になるよう timeZone を固定する。
const jst = new Intl.DateTimeFormat("ja-JP", {
  timeZone: "Asia/Tokyo",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "numeric",
  minute: "2-digit",
  hour12: false,
});

export function formatJst(value: string | Date): string {
  return jst.format(typeof value === "string" ? new Date(value) : value);
}
'''

SUMMARY = '''Summary:
1. Primary Request and Intent: 注文履歴ページ（pages/orders.vue, components/OrderCard.vue）の hydration mismatch 警告を直す。ユーザーのルール: <ClientOnly> で逃げない（「毎回 ClientOnly で逃げると SEO が死ぬ」、商品ページも同じコンポーネントを使う）。dayjs / moment などの日付ライブラリは入れない（バンドル予算 170KB、超えると CI が落ちる）。表示は常に JST（海外のお客さんもいるので、ブラウザの TZ に頼らない）。
2. Key Technical Concepts: Nuxt 3.12 SSR on Vercel (サーバーは UTC)、Intl.DateTimeFormat の timeZone 指定、vitest。
3. Files and Code Sections:
   - utils/date.ts: formatJst()（Intl.DateTimeFormat, timeZone "Asia/Tokyo", hour12: false）を新規作成。
   - components/OrderCard.vue: toLocaleString("ja-JP") を formatJst に置き換え済み。
   - tests/utils/date.test.ts: 日付をまたぐケース（2026-03-31T15:30:00Z → 2026/04/01 0:30）のテストを書いた。まだ実行していない。
4. Errors and fixes: 最初に OrderCard を <ClientOnly> で包もうとした Edit はユーザーに拒否された（SEO）。
5. Pending Tasks: date.test.ts を実行、typecheck、build のサイズ確認。
6. Current Work: テスト実行の直前。'''


def build() -> Session:
    s = Session("nuxt-hydration-jst-compact-ja", cwd="/Users/haruka/dev/kurashi-shop-front", branch="fix/order-date-hydration",
                start="2026-04-01T00:52:18.661Z", version="2.1.60", slug="hydrated-clock-tanuki")
    s.user("注文履歴ページで hydration mismatch の警告がずっと出てます。ブラウザのコンソールはこれ:\n\n" + WARN, wait=6)
    s.call(s.read_call("components/OrderCard.vue", ORDER_CARD))
    s.grep("toLocaleString\\(", ["components/OrderCard.vue", "components/ProductPrice.vue", "pages/orders/[id].vue", "components/PointHistory.vue"])
    s.say(
        "原因は `toLocaleString(\"ja-JP\")` がタイムゾーンを指定していないことです。SSR は Vercel "
        "（UTC）で `2026/3/31 15:30:00`、ブラウザは JST で `2026/4/1 0:30:00` を作るので、テキストが"
        "一致しません。手っ取り早いのは日付部分をクライアントだけで描画することなので、まずそれで:"
    )
    s.edit_rejected("components/OrderCard.vue", '''    <span class="order-date">{{ orderedAt }}</span>''', '''    <ClientOnly>
      <span class="order-date">{{ orderedAt }}</span>
    </ClientOnly>''', reason="ClientOnly はやめてください。毎回 ClientOnly で逃げると SEO が死ぬんですよ、OrderCard は商品ページのレビュー欄でも使ってるので")
    s.say("了解です、`<ClientOnly>` は使いません。サーバーとクライアントで同じ文字列を作る方向にします。日付ライブラリを入れてもいいですか？ dayjs の timezone プラグインなら一行で済みます。")
    s.turn_end()
    s.user("dayjs も moment も入れないで。バンドル予算 170KB 決まってて、超えると CI が落ちます。Intl でできるでしょ", wait=40)
    s.say(
        "できます。`Intl.DateTimeFormat` に `timeZone: \"Asia/Tokyo\"` を固定すれば、サーバーでも"
        "ブラウザでも同じ結果になります。ブラウザのタイムゾーンに合わせるべきかだけ確認させてください。"
    )
    s.turn_end()
    s.user("表示は常に JST で。海外のお客さんもいるけど、問い合わせのときに時刻がずれてると CS が困るので", wait=30)
    s.write("utils/date.ts", DATE_TS)
    s.edit("components/OrderCard.vue", '''const orderedAt = computed(() => new Date(props.order.orderedAt).toLocaleString("ja-JP"));''', '''const orderedAt = computed(() => formatJst(props.order.orderedAt));''')
    s.write("tests/utils/date.test.ts", '''import { describe, expect, it } from "vitest";
import { formatJst } from "~/utils/date";

describe("formatJst", () => {
  it("UTC の 15:30 は JST で翌日 0:30", () => {
    expect(formatJst("2026-03-31T15:30:00Z")).toBe("2026/04/01 0:30");
  });
  it("Date も受け取る", () => {
    expect(formatJst(new Date("2026-04-01T03:05:00Z"))).toBe("2026/04/01 12:05");
  });
});
''')
    s.compact(SUMMARY, pre_tokens=157402)
    s.say("続けます。書いたテストを実行します。")
    s.bash("npx vitest run tests/utils/date.test.ts 2>&1 | tail -12", ''' FAIL  tests/utils/date.test.ts > formatJst > UTC の 15:30 は JST で翌日 0:30
AssertionError: expected '2026/04/01 24:30' to be '2026/04/01 0:30' // Object.is equality

- Expected
+ Received

- 2026/04/01 0:30
+ 2026/04/01 24:30

 ❯ tests/utils/date.test.ts:6:46

 Test Files  1 failed (1)
      Tests  1 failed | 1 passed (2)''', desc="日付フォーマットのテスト", secs=6)
    s.say(
        "`hour12: false` だと、Node の ICU では深夜 0 時台が `24:30` になります（`hourCycle` が "
        "`h24` になる）。日付は正しく 4/1 に変わっているので、時だけの問題です。`hour12` ではなく "
        "`hourCycle: \"h23\"` を明示します。"
    )
    s.edit("utils/date.ts", '''  hour12: false,''', '''  hourCycle: "h23", // hour12: false だと Node の ICU で 0 時台が "24:30" になる''')
    s.bash("npx vitest run tests/utils/date.test.ts 2>&1 | tail -4", ''' ✓ tests/utils/date.test.ts (2 tests) 4ms

 Test Files  1 passed (1)
      Tests  2 passed (2)''', desc="日付フォーマットのテスト", secs=5)
    s.bash("npx nuxi typecheck && npx vitest run", ''' ✓ tests/utils/date.test.ts (2 tests) 4ms
 ✓ tests/components/OrderCard.test.ts (3 tests) 41ms
 ✓ tests/composables/useCart.test.ts (11 tests) 22ms

 Test Files  3 passed (3)
      Tests  16 passed (16)''', desc="型チェックと全テスト", secs=38)
    s.bash("npm run build 2>&1 | grep -E 'size-limit|client total'", '''  client total: 161.4 kB (gzip)
size-limit: OK (161.4 kB / 170 kB)''', desc="ビルドとバンドルサイズ", secs=60)
    s.say(
        "OrderCard の警告は直りました（`formatJst` 経由、SSR とブラウザで同じ文字列）。テスト 16 件、"
        "typecheck、ビルドとも OK で、バンドルは 161.4 kB / 170 kB です。\n\n"
        "`toLocaleString(` は他にも `ProductPrice.vue`、`pages/orders/[id].vue`、`PointHistory.vue` "
        "にあります（金額の `toLocaleString` は TZ に関係ないので問題なし、日付のものは同じ警告が出る"
        "はずです）。それと、注文確認メールの時刻はどのタイムゾーンで出ているんでしょう？ 画面と"
        "メールで時刻が違うと結局 CS が困りそうです。"
    )
    s.turn_end()
    s.user("残りの日付は明日まとめて formatJst にします。メールはバックエンド（Rails）側なので田中さんに聞いてみます。ありがとう", wait=70)
    s.say("了解です。今日はここまでにします。")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Nuxt 3 SSR on Vercel, Japanese; a pasted hydration warning (UTC on the server vs JST in the browser)",
        "an Edit wrapping the date in <ClientOnly> rejected with a rule stated as a complaint (SEO, the card is reused on product pages)",
        "no date library rule with its reason (170 KB bundle budget, CI fails)",
        "the user's decision with its reason (always JST, CS needs matching times)",
        "compaction between writing a test and its first run",
        "'24:30' from hour12:false in Node's ICU behind `| tail`, hourCycle h23",
        "a todo the user takes (remaining dates tomorrow) and a question for a colleague (mail times, Rails)",
    ],
    "language": "ja",
    "empty": False,
    "items": [
        {"id": "b1", "type": "bug_note",
         "match": [["hydration", "mismatch"], ["timeZone", "UTC", "Asia/Tokyo"]],
         "note": "注文履歴の hydration mismatch は toLocaleString にタイムゾーンがなく、SSR（Vercel, UTC）とブラウザ（JST）で文字列が違ったため。Intl.DateTimeFormat に timeZone Asia/Tokyo を固定した。"},
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["ClientOnly"], ["SEO"]],
         "note": "hydration の問題を <ClientOnly> で逃げない: SEO が死ぬ（OrderCard は商品ページのレビュー欄でも使う）。"},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["dayjs", "moment"], ["170"]],
         "note": "dayjs や moment などの日付ライブラリは入れない: バンドル予算 170KB を超えると CI が落ちる。"},
        {"id": "d1", "type": "decision", "types": ["decision", "constraint"],
         "match": [["JST"], ["CS", "海外"]],
         "note": "日時の表示は常に JST（ブラウザの TZ に合わせない）: 問い合わせ時に時刻がずれると CS が困るため。"},
        {"id": "d2", "type": "decision", "types": ["decision", "project_fact"],
         "match": [["formatJst"], ["utils/date", "Intl"]],
         "note": "日付表示は utils/date.ts の formatJst（Intl.DateTimeFormat）に集約する。"},
        {"id": "b2", "type": "bug_note", "types": ["bug_note", "failed_attempt"],
         "match": [["24:30"], ["hourCycle", "h23"]],
         "note": "hour12: false だと Node の ICU で 0 時台が '24:30' になる; hourCycle: 'h23' を指定する。"},
        {"id": "t1", "type": "todo",
         "match": [["明日"], ["formatJst", "残り"]],
         "note": "残りの日付表示（ProductPrice.vue, pages/orders/[id].vue, PointHistory.vue）は明日まとめて formatJst にする。"},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo"],
         "match": [["田中"], ["メール"]],
         "note": "注文確認メールの時刻のタイムゾーンは? バックエンド（Rails）なので田中さんに聞く。"},
        {"id": "x1", "type": "project_fact", "required": False,
         "match": [["161.4"], ["170"]],
         "note": "クライアントバンドルは 161.4 kB / 170 kB（gzip）。"},
        {"id": "v1", "type": "verified_command", "command": "npx nuxi typecheck && npx vitest run"},
        {"id": "v2", "type": "verified_command", "command": "npx vitest run tests/utils/date.test.ts"},
        {"id": "v3", "type": "verified_command", "required": False, "command": "npm run build"},
    ],
    "secrets": [],
    "forbidden": [["This session is being continued"], ["Primary Request and Intent"], ["doesn't want to proceed"]],
}
