# ruff: noqa: E501  (verbatim command output and file contents)
"""Scala 2.13 / sbt: circe auto derivation replaced by semi-auto for compile time; snake_case keys lost then restored (Japanese)."""

from make_sessions import Session

ORDER = '''package shop.api.model

import java.time.Instant

final case class Money(amount: BigDecimal, currency: String)

final case class OrderLine(sku: String, quantity: Int, unitPrice: Money)

final case class Order(orderId: String, customerId: String, lines: List[OrderLine], placedAt: Instant)
'''

ROUTES = '''package shop.api.http

import io.circe.generic.extras.auto._
import org.http4s.circe.CirceEntityCodec._
import shop.api.json.JsonConfig._
import shop.api.model._

object OrderRoutes {
  // ...
}
'''

JSON_CONFIG = '''package shop.api.json

import io.circe.generic.extras.Configuration

object JsonConfig {
  implicit val config: Configuration = Configuration.default.withSnakeCaseMemberNames
}
'''

GREP_AUTO = '''api/src/main/scala/shop/api/http/OrderRoutes.scala:3:import io.circe.generic.extras.auto._
api/src/main/scala/shop/api/http/CartRoutes.scala:3:import io.circe.generic.extras.auto._
api/src/main/scala/shop/api/http/CustomerRoutes.scala:4:import io.circe.generic.extras.auto._
api/src/main/scala/shop/api/kafka/OrderEvents.scala:5:import io.circe.generic.extras.auto._
batch/src/main/scala/shop/batch/Export.scala:7:import io.circe.generic.auto._
batch/src/main/scala/shop/batch/Reconcile.scala:6:import io.circe.generic.auto._'''


def build() -> Session:
    s = Session("scala-circe-derivation-ja", cwd="/home/kenta/src/shop-backend", branch="build/circe-semiauto",
                start="2026-02-24T01:15:33.650Z", version="2.1.47", slug="derived-codec-tanuki")
    s.user(
        "api モジュールのコンパイルが遅すぎる。クリーンビルドで3分以上かかってて、プロファイルを見ると "
        "circe の auto 導出がほとんどを食ってるっぽい。なんとかしてほしい。\n\n"
        "前提として Scala は 2.13 のまま。batch モジュールが Spark 3.5 に載ってるので Scala 3 には上げられない。",
        wait=6,
    )
    s.grep("generic(\\.extras)?\\.auto", content=GREP_AUTO, glob="*.scala")
    s.call(s.read_call("api/src/main/scala/shop/api/model/Order.scala", ORDER),
           s.read_call("api/src/main/scala/shop/api/json/JsonConfig.scala", JSON_CONFIG),
           s.read_call("api/src/main/scala/shop/api/http/OrderRoutes.scala", ROUTES))
    s.bash("sbt -Dsbt.supershell=false clean api/compile 2>&1 | tail -2", '''[info] compiling 84 Scala sources to /home/kenta/src/shop-backend/api/target/scala-2.13/classes ...
[success] Total time: 214 s (03:34), completed Feb 24, 2026, 1:21:02 AM''', desc="ベースライン計測", secs=220)
    s.say(
        "クリーンで 214 秒。`generic.extras.auto._` は使う場所ごとに `Encoder`/`Decoder` を毎回マクロで"
        "導出し直すので、同じ `Order` の導出が routes・kafka・テストで何十回も走っています。\n\n"
        "方針：各モデルのコンパニオンオブジェクトでセミオート導出して一度だけ定義し、`auto._` の import を"
        "消します。まず素直に circe-generic の `deriveEncoder`/`deriveDecoder` で書きます。"
    )
    s.edit("api/src/main/scala/shop/api/model/Order.scala", '''import java.time.Instant
''', '''import io.circe.{Decoder, Encoder}
import io.circe.generic.semiauto.{deriveDecoder, deriveEncoder}
import java.time.Instant
''')
    s.edit("api/src/main/scala/shop/api/model/Order.scala", '''final case class Order(orderId: String, customerId: String, lines: List[OrderLine], placedAt: Instant)
''', '''final case class Order(orderId: String, customerId: String, lines: List[OrderLine], placedAt: Instant)

object Order {
  implicit val encoder: Encoder[Order] = deriveEncoder
  implicit val decoder: Decoder[Order] = deriveDecoder
}
''')
    s.edit("api/src/main/scala/shop/api/http/OrderRoutes.scala", '''import io.circe.generic.extras.auto._
''', '')
    s.bash("sbt -Dsbt.supershell=false api/compile 2>&1 | tail -6", '''[error] /home/kenta/src/shop-backend/api/src/main/scala/shop/api/model/Order.scala:14:50: could not find Lazy implicit value of type io.circe.generic.encoding.DerivedAsObjectEncoder[shop.api.model.Order]
[error]   implicit val encoder: Encoder[Order] = deriveEncoder
[error]                                                  ^
[error] one error found
[error] (api / Compile / compileIncremental) Compilation failed
[error] Total time: 19 s, completed Feb 24, 2026, 1:24:40 AM''', desc="コンパイル", secs=25)
    s.say(
        "`Order` の導出が `List[OrderLine]` と `Money` のインスタンスを見つけられていません。auto を消したので、"
        "ネストした型にもそれぞれコンパニオンでインスタンスが要ります。"
    )
    s.edit("api/src/main/scala/shop/api/model/Order.scala", '''final case class Money(amount: BigDecimal, currency: String)

final case class OrderLine(sku: String, quantity: Int, unitPrice: Money)
''', '''final case class Money(amount: BigDecimal, currency: String)

object Money {
  implicit val encoder: Encoder[Money] = deriveEncoder
  implicit val decoder: Decoder[Money] = deriveDecoder
}

final case class OrderLine(sku: String, quantity: Int, unitPrice: Money)

object OrderLine {
  implicit val encoder: Encoder[OrderLine] = deriveEncoder
  implicit val decoder: Decoder[OrderLine] = deriveDecoder
}
''')
    s.bash("sbt -Dsbt.supershell=false api/compile 'api/testOnly *OrderJsonSuite' 2>&1 | tail -9", '''[info] compiling 3 Scala sources to /home/kenta/src/shop-backend/api/target/scala-2.13/test-classes ...
shop.api.json.OrderJsonSuite:
==> X shop.api.json.OrderJsonSuite.order matches the golden file  0.041s munit.ComparisonFailException: /home/kenta/src/shop-backend/api/src/test/scala/shop/api/json/OrderJsonSuite.scala:18
17:    val json = order.asJson
18:    assertEquals(json, golden("order.json"))
values are not the same
=> Obtained
  "orderId" : "ord_7H2K",
=> Diff (- obtained, + expected)
-  "orderId" : "ord_7H2K",
+  "order_id" : "ord_7H2K",''', desc="コンパイルとゴールデンテスト", secs=40)
    s.say(
        "コンパイルは通りましたが、ゴールデンファイルのテストが落ちます：`orderId` になっていて、期待値は "
        "`order_id`。素の `deriveEncoder` は `JsonConfig` の `withSnakeCaseMemberNames` を見ないので、"
        "API の JSON キーが全部キャメルケースに変わってしまう。これはクライアントを壊すので、この形は"
        "やめます。generic-extras の `deriveConfiguredCodec` なら同じ `Configuration` を使えるので、"
        "そちらに切り替えます。"
    )
    s.write("api/src/main/scala/shop/api/model/Order.scala", '''package shop.api.model

import io.circe.Codec
import io.circe.generic.extras.semiauto.deriveConfiguredCodec
import java.time.Instant
import shop.api.json.JsonConfig._

// コーデックはコンパニオンで一度だけ導出する（auto 導出は使う場所ごとに再導出してコンパイルが遅い）。
// JSON キーは snake_case（JsonConfig）。

final case class Money(amount: BigDecimal, currency: String)

object Money {
  implicit val codec: Codec.AsObject[Money] = deriveConfiguredCodec
}

final case class OrderLine(sku: String, quantity: Int, unitPrice: Money)

object OrderLine {
  implicit val codec: Codec.AsObject[OrderLine] = deriveConfiguredCodec
}

final case class Order(orderId: String, customerId: String, lines: List[OrderLine], placedAt: Instant)

object Order {
  implicit val codec: Codec.AsObject[Order] = deriveConfiguredCodec
}
''')
    s.bash("sbt -Dsbt.supershell=false 'api/testOnly *OrderJsonSuite' 2>&1 | tail -4", '''shop.api.json.OrderJsonSuite:
  + order matches the golden file 0.038s
  + order round-trips 0.012s
[info] Passed: Total 2, Failed 0, Errors 0, Passed 2''', desc="ゴールデンテスト", secs=30)
    s.say("snake_case に戻りました。同じ形で Cart・Customer・kafka のイベントも変えて、`auto._` の import を api から全部消します。")
    for name in ("CartRoutes", "CustomerRoutes"):
        path = f"api/src/main/scala/shop/api/http/{name}.scala"
        s.call(s.read_call(path, f"package shop.api.http\n\nimport io.circe.generic.extras.auto._\nimport org.http4s.circe.CirceEntityCodec._\nimport shop.api.json.JsonConfig._\nimport shop.api.model._\n\nobject {name} {{\n  // ...\n}}\n", limit=6))
        s.edit(path, "import io.circe.generic.extras.auto._\n", "")
    s.call(s.read_call("api/src/main/scala/shop/api/kafka/OrderEvents.scala", "package shop.api.kafka\n\nimport fs2.kafka._\nimport io.circe.generic.extras.auto._\nimport io.circe.syntax._\nimport shop.api.json.JsonConfig._\nimport shop.api.model._\n", limit=7))
    s.edit("api/src/main/scala/shop/api/kafka/OrderEvents.scala", "import io.circe.generic.extras.auto._\n", "")
    s.bash("sbt -Dsbt.supershell=false clean api/compile 2>&1 | tail -2", '''[info] compiling 84 Scala sources to /home/kenta/src/shop-backend/api/target/scala-2.13/classes ...
[success] Total time: 91 s (01:31), completed Feb 24, 2026, 1:52:17 AM''', desc="クリーンビルド再計測", secs=95)
    s.bash("sbt -Dsbt.supershell=false api/test 2>&1 | tail -3", '''[info] Passed: Total 412, Failed 0, Errors 0, Passed 412
[success] Total time: 58 s, completed Feb 24, 2026, 1:54:03 AM''', desc="api の全テスト", secs=62)
    s.bash("sbt -Dsbt.supershell=false scalafmtCheckAll 2>&1 | tail -1", "[success] Total time: 6 s, completed Feb 24, 2026, 1:54:40 AM", desc="フォーマット確認", secs=10)
    s.say(
        "完了です。\n\n"
        "- api のクリーンビルド：214 秒 → 91 秒。\n"
        "- 全モデルのコンパニオンで `deriveConfiguredCodec`（snake_case の `JsonConfig` を使う）。api から "
        "`generic.extras.auto._` はなくなりました。\n"
        "- 412 テストとゴールデンファイル、scalafmt すべて OK。\n\n"
        "batch モジュール（`Export.scala`, `Reconcile.scala`）はまだ `io.circe.generic.auto._` のままです。"
        "今回は触っていません。"
    )
    s.turn_end()
    s.user(
        "いいね。batch は次の PR でやる。あと新しく書くテストは munit にしてね、ScalaTest は段々なくしていく"
        "方針なので。それと generic-extras ってもうメンテされてないんだっけ？いずれ外すべきか気になってる",
        wait=200,
    )
    s.say(
        "了解です、新規テストは munit で書きます（今回の `OrderJsonSuite` も munit です）。\n\n"
        "generic-extras は circe 本体のリリースに追従しておらず、実質メンテナンスされていません。"
        "外すなら snake_case を自前の `Codec.forProduct` で書くか、別ライブラリに移るかですが、"
        "モデルが80近くあるので、どちらにするかは決めてから別タスクにするのがいいと思います。"
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Scala 2.13 / sbt multi-module (http4s, circe, circe-generic-extras, munit), Japanese",
        "a rule with its reason in the first prompt (Scala 2.13: the batch module is on Spark 3.5)",
        "measured before/after (clean compile 214 s → 91 s)",
        "compile error (missing nested instances) behind `| tail`, then fixed",
        "a first approach (plain deriveEncoder) failing a golden-file test behind `| tail` (camelCase keys), replaced by deriveConfiguredCodec",
        "a preference stated at the end (munit for new tests), a todo (batch module) and an open question (drop generic-extras?)",
    ],
    "language": "ja",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "project_fact"],
         "match": [["2.13"], ["Spark", "batch"]],
         "note": "Scala は 2.13 のまま：batch モジュールが Spark 3.5 に載っているので Scala 3 に上げられない。"},
        {"id": "d1", "type": "decision",
         "match": [["コンパニオン", "companion", "deriveConfiguredCodec"], ["再導出", "コンパイル", "214"]],
         "note": "circe のコーデックは各モデルのコンパニオンでセミオート導出（auto 導出は使う場所ごとに再導出してコンパイルが遅い）。クリーンビルド 214 秒 → 91 秒。"},
        {"id": "b1", "type": "bug_note",
         "match": [["could not find Lazy implicit", "DerivedAsObjectEncoder", "ネストした型"], ["Money", "OrderLine"]],
         "note": "auto を消すと Order の導出が失敗（could not find Lazy implicit value）：ネストした Money / OrderLine にもコンパニオンでインスタンスが必要。"},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "bug_note"],
         "match": [["deriveEncoder"], ["snake_case", "order_id", "orderId"]],
         "note": "素の deriveEncoder は JsonConfig の snake_case を無視してキーが orderId になり、ゴールデンテストが落ちた：deriveConfiguredCodec に切り替え。"},
        {"id": "x1", "type": "project_fact", "required": False,
         "match": [["214"], ["91"]],
         "note": "api のクリーンビルドは 214 秒から 91 秒に。"},
        {"id": "t1", "type": "todo",
         "match": [["batch"], ["generic.auto", "次の PR"]],
         "note": "batch モジュール（Export.scala, Reconcile.scala）はまだ io.circe.generic.auto._：次の PR で。"},
        {"id": "p1", "type": "preference", "types": ["preference", "constraint"],
         "match": [["munit"], ["ScalaTest"]],
         "note": "新しく書くテストは munit。ScalaTest は段々なくしていく。"},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo"],
         "match": [["generic-extras"], ["メンテ", "外す"]],
         "note": "generic-extras は実質メンテされていない：いずれ外すか（forProduct で書くか別ライブラリか）は未決。"},
        {"id": "v1", "type": "verified_command", "command": "sbt -Dsbt.supershell=false 'api/testOnly *OrderJsonSuite'"},
        {"id": "v2", "type": "verified_command", "command": "sbt -Dsbt.supershell=false api/test"},
        {"id": "v3", "type": "verified_command", "command": "sbt -Dsbt.supershell=false scalafmtCheckAll"},
        {"id": "v4", "type": "verified_command", "required": False, "command": "sbt -Dsbt.supershell=false clean api/compile"},
    ],
    "secrets": [],
    "forbidden": [],
}
