# ruff: noqa: E501  (verbatim command output and file contents)
"""Clojure (reitit, next.jdbc, HoneySQL, malli, migratus): OFFSET pagination replaced by keyset; tie on created_at (Chinese)."""

from make_sessions import Session

HANDLER = '''(ns orders.api
  (:require [honey.sql :as sql]
            [honey.sql.helpers :as h]
            [next.jdbc :as jdbc]
            [next.jdbc.result-set :as rs]))

(def ListParams
  [:map
   [:limit {:optional true} [:int {:min 1 :max 500}]]
   [:offset {:optional true} [:int {:min 0}]]])

(defn list-orders [{:keys [db parameters]}]
  (let [{:keys [limit offset] :or {limit 100 offset 0}} (:query parameters)
        q (-> (h/select :id :customer-id :total-cents :status :created-at)
              (h/from :orders)
              (h/order-by [:created-at :asc])
              (h/limit limit)
              (h/offset offset))]
    {:status 200
     :body {:items (jdbc/execute! db (sql/format q) {:builder-fn rs/as-unqualified-kebab-maps})}}))
'''

TEST = '''(ns orders.api-test
  (:require [clojure.test :refer [deftest is use-fixtures]]
            [orders.api :as api]
            [orders.test-db :refer [with-db *db* insert-orders!]]))

(use-fixtures :each with-db)

(deftest keyset-pagination-test
  ;; 250 orders, 40 of them imported in one batch with the same created_at
  (insert-orders! *db* 250 {:same-timestamp 40})
  (let [pages (loop [cursor nil acc []]
                (let [{:keys [items next-cursor]} (:body (api/list-orders {:db *db* :parameters {:query (cond-> {:limit 30} cursor (assoc :cursor cursor))}}))
                      acc (into acc items)]
                  (if next-cursor (recur next-cursor acc) acc)))]
    (is (= 250 (count pages)))
    (is (= 250 (count (set (map :id pages)))))))
'''


def build() -> Session:
    s = Session("clojure-keyset-zh", cwd="/home/chen/work/orders-service", branch="feat/keyset-pagination",
                start="2026-05-19T02:14:27.388Z", version="2.1.56", slug="keyset-cursor-heron")
    s.user(
        "/api/orders 翻到后面的页特别慢，offset 到 20 万的时候要 8 秒多。而且对账的同事说翻页时偶尔"
        "会重复或者漏单。改成游标分页吧。\n\n查询用 HoneySQL 写，别拼 SQL 字符串，跟别的 handler 一样。"
        "参数校验用 malli，我们不用 spec。",
        wait=8,
    )
    s.call(s.read_call("src/orders/api.clj", HANDLER))
    s.todo([
        ("用 (created_at, id) 做 keyset 分页，返回 next-cursor", "in_progress", "改成 keyset 分页"),
        ("加索引迁移", "pending", "加索引迁移"),
        ("测试：重复时间戳不漏不重", "pending", "写测试"),
        ("clj-kondo + 全部测试", "pending", "跑 lint 和测试"),
    ])
    s.say(
        "慢的原因是 `OFFSET 200000`：Postgres 要先读出并丢掉前 20 万行。漏单/重复则是因为翻页"
        "期间有新订单插入，OFFSET 整体后移。keyset 分页用上一页最后一行的位置做条件 "
        "(`WHERE created_at > ?`)，走索引直接定位，插入也不会让已翻过的行再出现。"
    )
    s.edit("src/orders/api.clj", '''(def ListParams
  [:map
   [:limit {:optional true} [:int {:min 1 :max 500}]]
   [:offset {:optional true} [:int {:min 0}]]])''', '''(def ListParams
  [:map
   [:limit {:optional true} [:int {:min 1 :max 500}]]
   [:cursor {:optional true} :string]
   ;; 旧客户端还在用 offset，暂时保留
   [:offset {:optional true} [:int {:min 0}]]])

(defn- encode-cursor [{:keys [created-at]}]
  (.encodeToString (java.util.Base64/getUrlEncoder) (.getBytes (str created-at))))

(defn- decode-cursor [s]
  (java.time.Instant/parse (String. (.decode (java.util.Base64/getUrlDecoder) ^String s))))''')
    s.edit("src/orders/api.clj", '''(defn list-orders [{:keys [db parameters]}]
  (let [{:keys [limit offset] :or {limit 100 offset 0}} (:query parameters)
        q (-> (h/select :id :customer-id :total-cents :status :created-at)
              (h/from :orders)
              (h/order-by [:created-at :asc])
              (h/limit limit)
              (h/offset offset))]
    {:status 200
     :body {:items (jdbc/execute! db (sql/format q) {:builder-fn rs/as-unqualified-kebab-maps})}}))''', '''(defn list-orders [{:keys [db parameters]}]
  (let [{:keys [limit offset cursor] :or {limit 100 offset 0}} (:query parameters)
        q (cond-> (-> (h/select :id :customer-id :total-cents :status :created-at)
                      (h/from :orders)
                      (h/order-by [:created-at :asc])
                      (h/limit limit))
            cursor       (h/where [:> :created-at (decode-cursor cursor)])
            (not cursor) (h/offset offset))
        items (jdbc/execute! db (sql/format q) {:builder-fn rs/as-unqualified-kebab-maps})]
    {:status 200
     :body {:items items
            :next-cursor (when (= limit (count items)) (encode-cursor (peek items)))}}))''')
    s.turn_end()
    s.user("等等，排序是按 created_at 倒序的，最新的在前面，前端一直是这么显示的。不是正序", wait=25)
    s.edit("src/orders/api.clj", '''                      (h/order-by [:created-at :asc])''', '''                      (h/order-by [:created-at :desc])''')
    s.edit("src/orders/api.clj", '''            cursor       (h/where [:> :created-at (decode-cursor cursor)])''', '''            cursor       (h/where [:< :created-at (decode-cursor cursor)])''')
    s.say("改成倒序了，游标条件也相应变成 `<`。接下来写测试，特意造一批同一时间戳的订单（批量导入就是这样）：")
    s.write("test/orders/api_test.clj", TEST)
    s.bash("bin/kaocha --focus orders.api-test 2>&1 | tail -12", '''[(F)]
Randomized with --seed 1730418822

FAIL in orders.api-test/keyset-pagination-test (api_test.clj:15)
expected: (= 250 (count pages))
  actual: (not (= 250 221))
╭───── Test output ───────────────────────────────────────────────────────
│ 1 tests, 2 assertions, 2 failures.
╰─────────────────────────────────────────────────────────────────────────
1 tests, 2 assertions, 2 failures.''', desc="跑分页测试", secs=22)
    s.say(
        "漏了 29 条，正好说明了问题：只按 `created_at` 做游标，40 条同一时间戳的订单如果被页边界"
        "切开，下一页的 `created_at < 游标` 会把剩下的同时间戳订单全跳过。游标必须是唯一的位置："
        "`(created_at, id)` 二元组，比较用行值 `(created_at, id) < (?, ?)`，排序也要加 `id desc`。"
    )
    s.edit("src/orders/api.clj", '''(defn- encode-cursor [{:keys [created-at]}]
  (.encodeToString (java.util.Base64/getUrlEncoder) (.getBytes (str created-at))))

(defn- decode-cursor [s]
  (java.time.Instant/parse (String. (.decode (java.util.Base64/getUrlDecoder) ^String s))))''', ''';; 游标 = (created_at, id)：只用 created_at 时，同一时间戳的批量导入订单会在页边界被跳过
(defn- encode-cursor [{:keys [created-at id]}]
  (.encodeToString (java.util.Base64/getUrlEncoder) (.getBytes (str created-at "|" id))))

(defn- decode-cursor [s]
  (let [[ts id] (clojure.string/split (String. (.decode (java.util.Base64/getUrlDecoder) ^String s)) #"\\|")]
    [(java.time.Instant/parse ts) (parse-long id)]))''')
    s.edit("src/orders/api.clj", '''                      (h/order-by [:created-at :desc])''', '''                      (h/order-by [:created-at :desc] [:id :desc])''')
    s.edit("src/orders/api.clj", '''            cursor       (h/where [:< :created-at (decode-cursor cursor)])''', '''            cursor       (h/where [:< [:composite :created-at :id] (into [:composite] (decode-cursor cursor))])''')
    s.bash("bin/kaocha --focus orders.api-test", '''[(..)]
1 tests, 2 assertions, 0 failures.''', desc="跑分页测试", secs=20)
    s.todo([
        ("用 (created_at, id) 做 keyset 分页，返回 next-cursor", "completed", "改成 keyset 分页"),
        ("加索引迁移", "in_progress", "加索引迁移"),
        ("测试：重复时间戳不漏不重", "completed", "写测试"),
        ("clj-kondo + 全部测试", "pending", "跑 lint 和测试"),
    ])
    s.say("还需要一个和排序一致的索引，否则 keyset 也快不起来：")
    s.write("resources/migrations/20260519021900-orders-created-at-id.up.sql", '''CREATE INDEX orders_created_at_id_idx ON orders (created_at DESC, id DESC);
''')
    s.turn_end()
    s.user("orders 表 3000 万行，建索引要 CONCURRENTLY，不然锁表。线上没法停写", wait=30)
    s.write("resources/migrations/20260519021900-orders-created-at-id.up.sql", '''CREATE INDEX CONCURRENTLY orders_created_at_id_idx ON orders (created_at DESC, id DESC);
''')
    s.bash("clojure -M:migrate migrate 2>&1 | tail -5", '''INFO  migratus.core - Running up for [20260519021900]
INFO  migratus.core - Up 20260519021900-orders-created-at-id
ERROR migratus.database - failed to execute command:
 CREATE INDEX CONCURRENTLY orders_created_at_id_idx ON orders (created_at DESC, id DESC);
org.postgresql.util.PSQLException: ERROR: CREATE INDEX CONCURRENTLY cannot run inside a transaction block''', desc="本地跑迁移", secs=9)
    s.say(
        "migratus 默认把每个迁移包在事务里，而 `CONCURRENTLY` 不能在事务里执行。migratus 支持在文件"
        "开头写 `-- :disable-transaction` 关掉它。"
    )
    s.write("resources/migrations/20260519021900-orders-created-at-id.up.sql", '''-- :disable-transaction
-- 3000 万行，不能锁表
CREATE INDEX CONCURRENTLY orders_created_at_id_idx ON orders (created_at DESC, id DESC);
''')
    s.write("resources/migrations/20260519021900-orders-created-at-id.down.sql", '''-- :disable-transaction
DROP INDEX CONCURRENTLY IF EXISTS orders_created_at_id_idx;
''')
    s.bash("clojure -M:migrate migrate", '''INFO  migratus.core - Starting migrations
INFO  migratus.core - Running up for [20260519021900]
INFO  migratus.core - Up 20260519021900-orders-created-at-id
INFO  migratus.core - Ending migrations''', desc="本地跑迁移", secs=9)
    s.bash("clj-kondo --lint src test", "linting took 812ms, errors: 0, warnings: 0", desc="clj-kondo", secs=3)
    s.bash("bin/kaocha 2>&1 | tail -2", '''87 tests, 312 assertions, 0 failures.''', desc="全部测试", secs=48)
    s.todo([
        ("用 (created_at, id) 做 keyset 分页，返回 next-cursor", "completed", "改成 keyset 分页"),
        ("加索引迁移", "completed", "加索引迁移"),
        ("测试：重复时间戳不漏不重", "completed", "写测试"),
        ("clj-kondo + 全部测试", "completed", "跑 lint 和测试"),
    ])
    s.say(
        "完成：\n- `/api/orders` 支持 `cursor`，游标是 `(created_at, id)`，按 `created_at desc, id desc` "
        "排序；同时间戳的批量订单不再漏；\n- 索引迁移用 `CONCURRENTLY` + `-- :disable-transaction`；\n"
        "- 测试 87 个全绿，clj-kondo 干净。\n\n`offset` 参数我留着没删，旧客户端还能用。"
    )
    s.turn_end()
    s.user(
        "offset 先留两个版本，下个迭代再删。另外数据组的日报脚本可能也是按 offset 拉的，我得问问小王",
        wait=80,
    )
    s.say("好的。要删 offset 时，`ListParams` 里那一项和 `(not cursor) (h/offset offset)` 一起去掉就行。")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Clojure service (reitit, next.jdbc, HoneySQL, malli, migratus, kaocha, clj-kondo), Chinese",
        "two rules in the first prompt (HoneySQL like the other handlers, no string SQL; malli, not spec)",
        "TodoWrite progress; a mid-session correction (descending order)",
        "keyset pagination with its why; a test failing behind `| tail` (exit 0) because of ties on created_at, then (created_at, id)",
        "CONCURRENTLY required by the user (30M rows), migratus transaction error, `-- :disable-transaction`",
        "offset kept for two versions (todo) and a question for a colleague (data team's report script)",
    ],
    "language": "zh",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["HoneySQL"], ["拼", "字符串", "handler"]],
         "note": "查询用 HoneySQL 写，别拼 SQL 字符串，跟别的 handler 一样。"},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["malli"], ["spec"]],
         "note": "参数校验用 malli，不用 spec。"},
        {"id": "d1", "type": "decision",
         "match": [["keyset", "游标"], ["offset"]],
         "note": "/api/orders 改成 keyset 游标分页：OFFSET 20 万要 8 秒，且翻页时新订单插入导致重复/漏单。"},
        {"id": "p1", "type": "constraint", "types": ["constraint", "preference", "project_fact"], "required": False,
         "match": [["倒序", "desc"], ["created_at"]],
         "note": "订单列表按 created_at 倒序，最新的在前面（前端一直这样显示）。"},
        {"id": "b1", "type": "bug_note",
         "match": [["created_at, id"], ["时间戳", "漏", "跳过"]],
         "note": "只用 created_at 做游标会在页边界跳过同一时间戳的批量订单；游标改为 (created_at, id)。"},
        {"id": "c3", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["CONCURRENTLY"], ["锁表", "3000 万"]],
         "note": "orders 表 3000 万行，建索引必须 CONCURRENTLY，不然锁表，线上不能停写。"},
        {"id": "b2", "type": "bug_note",
         "match": [["disable-transaction"], ["CONCURRENTLY", "事务", "transaction"]],
         "note": "migratus 默认把迁移包在事务里，CONCURRENTLY 会报错；迁移文件开头加 -- :disable-transaction。"},
        {"id": "t1", "type": "todo",
         "match": [["offset"], ["两个版本", "下个迭代"]],
         "note": "offset 参数先留两个版本，下个迭代再删。"},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo"],
         "match": [["小王"], ["offset", "日报"]],
         "note": "数据组的日报脚本是不是按 offset 拉的？问小王。"},
        {"id": "v1", "type": "verified_command", "command": "bin/kaocha --focus orders.api-test"},
        {"id": "v2", "type": "verified_command", "command": "clojure -M:migrate migrate"},
        {"id": "v3", "type": "verified_command", "command": "clj-kondo --lint src test"},
        {"id": "v4", "type": "verified_command", "command": "bin/kaocha"},
    ],
    "secrets": [],
    "forbidden": [["Todos have been modified"]],
}
