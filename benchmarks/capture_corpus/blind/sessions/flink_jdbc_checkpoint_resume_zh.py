# ruff: noqa: E501  (verbatim command output and file contents)
"""Flink order-wide-table job: checkpoints time out from JDBC sink backpressure; resumed the next day with the state restated (30-min timeout already tried); batching + rewriteBatchedStatements over unaligned checkpoints; background IT failing mid-output (PAID overwritten by CREATED), keyBy before the sink; CLI restart of the prod job rejected (Chinese)."""

from make_sessions import Session

JOB_JAVA = '''package com.qianniu.rt.orderwide;

import org.apache.flink.connector.jdbc.JdbcConnectionOptions;
import org.apache.flink.connector.jdbc.JdbcExecutionOptions;
import org.apache.flink.connector.jdbc.JdbcSink;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

public class OrderWideJob {

    public static void main(String[] args) throws Exception {
        JobConfig cfg = JobConfig.fromArgs(args);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(60_000);
        env.getCheckpointConfig().setCheckpointTimeout(30 * 60_000); // 昨天从 10 分钟改到 30 分钟，没用

        DataStream<OrderWide> wide = OrderWidePipeline.build(env, cfg);

        wide.addSink(JdbcSink.sink(
                "INSERT INTO dws_order_wide (order_id, user_id, shop_id, pay_amount, status, updated_at) VALUES (?, ?, ?, ?, ?, ?) "
                        + "ON DUPLICATE KEY UPDATE user_id = VALUES(user_id), shop_id = VALUES(shop_id), pay_amount = VALUES(pay_amount), "
                        + "status = VALUES(status), updated_at = VALUES(updated_at)",
                OrderWide::bind,
                JdbcExecutionOptions.builder()
                        .withBatchSize(1)
                        .withMaxRetries(3)
                        .build(),
                new JdbcConnectionOptions.JdbcConnectionOptionsBuilder()
                        .withUrl(cfg.mysqlUrl())
                        .withDriverName("com.mysql.cj.jdbc.Driver")
                        .withUsername(cfg.mysqlUser())
                        .withPassword(cfg.mysqlPassword())
                        .build()))
            .name("sink-dws-order-wide")
            .setParallelism(4);

        env.execute("order-wide");
    }
}
'''

IT_FAIL = '''[INFO] Running com.qianniu.rt.orderwide.OrderWideSinkIT
[INFO] Container mysql:8.0.36 is starting: 3c1f0a9d2b7e
[INFO] Container mysql:8.0.36 started in PT14.882S
2026-03-24 10:41:02,004 INFO  org.apache.flink.runtime.minicluster.MiniCluster - Starting Flink Mini Cluster
2026-03-24 10:41:03,551 INFO  org.apache.flink.runtime.executiongraph.ExecutionGraph - Source: it-events (1/1) switched from DEPLOYING to RUNNING.
2026-03-24 10:41:03,560 INFO  org.apache.flink.runtime.executiongraph.ExecutionGraph - Sink: sink-dws-order-wide (1/4) switched from DEPLOYING to RUNNING.
2026-03-24 10:41:03,561 INFO  org.apache.flink.runtime.executiongraph.ExecutionGraph - Sink: sink-dws-order-wide (2/4) switched from DEPLOYING to RUNNING.
2026-03-24 10:41:07,118 INFO  org.apache.flink.runtime.checkpoint.CheckpointCoordinator - Completed checkpoint 1 for job order-wide-it (18432 bytes, checkpointDuration=212 ms).
[ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 71.32 s <<< FAILURE! -- in com.qianniu.rt.orderwide.OrderWideSinkIT
[ERROR] com.qianniu.rt.orderwide.OrderWideSinkIT.statusUpdateOverwritesRow -- Time elapsed: 31.07 s <<< FAILURE!
org.opentest4j.AssertionFailedError: order 90000017: expected: <PAID> but was: <CREATED>
\tat org.junit.jupiter.api.AssertionFailureBuilder.build(AssertionFailureBuilder.java:151)
\tat org.junit.jupiter.api.AssertEquals.assertEquals(AssertEquals.java:197)
\tat com.qianniu.rt.orderwide.OrderWideSinkIT.statusUpdateOverwritesRow(OrderWideSinkIT.java:88)
[INFO] Running com.qianniu.rt.orderwide.OrderWidePipelineTest
[INFO] Tests run: 14, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 3.91 s -- in com.qianniu.rt.orderwide.OrderWidePipelineTest
2026-03-24 10:41:19,772 INFO  org.apache.flink.runtime.minicluster.MiniCluster - Shutting down Flink Mini Cluster
[INFO]
[INFO] Results:
[INFO]
[ERROR] Failures:
[ERROR]   OrderWideSinkIT.statusUpdateOverwritesRow:88 order 90000017: expected: <PAID> but was: <CREATED>
[INFO]
[ERROR] Tests run: 17, Failures: 1, Errors: 0, Skipped: 0
[INFO]
[INFO] ------------------------------------------------------------------------
[INFO] BUILD FAILURE
[INFO] ------------------------------------------------------------------------'''


def build() -> Session:
    s = Session("flink-jdbc-checkpoint-resume-zh", cwd="/home/chenlei/work/rt-order-wide", branch="fix/checkpoint-timeout",
                start="2026-03-24T01:52:18.440Z", version="2.1.33", slug="flink-jdbc-batch-checkpoint")
    s.user(
        "接着昨天的弄。订单宽表那个 flink 作业 (1.17, rt-order-wide) checkpoint 一直超时。昨天查到的：反压在 sink-dws-order-wide 那个 JDBC sink，写 MySQL，"
        "上游 busy 基本 0，sink 100%。超时从 10 分钟改到 30 分钟试过了，没用，还是超时，反而作业挂了一次恢复了 20 分钟。今天找根因",
        wait=5,
    )
    s.read("src/main/java/com/qianniu/rt/orderwide/OrderWideJob.java", JOB_JAVA)
    s.grep("mysqlUrl|rewriteBatched", content='''src/main/resources/application-prod.properties:4:mysql.url=jdbc:mysql://rm-dws-prod.mysql.rds.qianniu.internal:3306/dws?useSSL=true&serverTimezone=Asia/Shanghai
src/main/java/com/qianniu/rt/orderwide/JobConfig.java:31:    public String mysqlUrl() { return props.getProperty("mysql.url"); }''', path="src")
    s.bash("git log --oneline -3 && git diff HEAD --stat", '''a18c2d7 checkpoint 超时改 30 分钟
5e90b13 宽表增加 shop_id
02f7c4e sink 并行度 4''', desc="昨天的改动")
    s.say(
        "根因在 sink 的写法上：\n\n"
        "- `withBatchSize(1)`：每条记录一次 `executeBatch`，也就是每条一次往返 MySQL。sink 并行度 4，每条几毫秒，吞吐上限就很低。\n"
        "- JDBC URL 里没有 `rewriteBatchedStatements=true`，就算把 batch 调大，MySQL Connector/J 默认还是一条条发 INSERT。\n"
        "- checkpoint 的 barrier 要排在 sink 前面积压的数据后面，sink 处理不完 barrier 就到不了，所以超时再长也没用——你昨天把超时放到 30 分钟的结果就是这个。\n\n"
        "两个方向：\n"
        "1. **开 unaligned checkpoint**：barrier 可以越过积压数据，checkpoint 能完成，但 sink 吞吐不变，积压的数据会写进 state。\n"
        "2. **提升 sink 吞吐**：`batchSize` 1000 + `batchIntervalMs` 200 + URL 加 `rewriteBatchedStatements=true`，把 1000 条合成一条多值 INSERT。\n\n"
        "我倾向 2，1 只是治标。"
    )
    s.turn_end()
    s.user(
        "2。unaligned 别开，去年别的作业开过，state 涨到 40 多 G，恢复一次半小时。另外 batch 太大的话 mysql 那边 max_allowed_packet 不知道够不够",
        wait=40,
    )
    s.edit("src/main/java/com/qianniu/rt/orderwide/OrderWideJob.java", '''                JdbcExecutionOptions.builder()
                        .withBatchSize(1)
                        .withMaxRetries(3)
                        .build(),''', '''                JdbcExecutionOptions.builder()
                        .withBatchSize(1000)       // 原来是 1：每条一次往返，sink 反压，checkpoint barrier 过不去
                        .withBatchIntervalMs(200)
                        .withMaxRetries(3)
                        .build(),''')
    s.read("src/main/resources/application-prod.properties", '''kafka.bootstrap=kafka-prod-01.qianniu.internal:9092,kafka-prod-02.qianniu.internal:9092
kafka.group=rt-order-wide
mysql.user=rt_order_wide
mysql.url=jdbc:mysql://rm-dws-prod.mysql.rds.qianniu.internal:3306/dws?useSSL=true&serverTimezone=Asia/Shanghai
mysql.password=${MYSQL_PASSWORD}''')
    s.edit("src/main/resources/application-prod.properties", '''mysql.url=jdbc:mysql://rm-dws-prod.mysql.rds.qianniu.internal:3306/dws?useSSL=true&serverTimezone=Asia/Shanghai''',
           '''mysql.url=jdbc:mysql://rm-dws-prod.mysql.rds.qianniu.internal:3306/dws?useSSL=true&serverTimezone=Asia/Shanghai&rewriteBatchedStatements=true''')
    s.edit("src/main/java/com/qianniu/rt/orderwide/OrderWideJob.java", '''        env.getCheckpointConfig().setCheckpointTimeout(30 * 60_000); // 昨天从 10 分钟改到 30 分钟，没用''',
           '''        env.getCheckpointConfig().setCheckpointTimeout(10 * 60_000); // 30 分钟试过没用：超时不是根因，sink 吞吐才是''')
    s.say("超时我也改回 10 分钟了，30 分钟只会让失败来得更晚。max_allowed_packet 我估一下：")
    s.bash("mvn -q exec:java -Dexec.mainClass=com.qianniu.rt.orderwide.tools.RowSize -Dexec.args='--sample src/test/resources/order_wide_sample.jsonl'", '''rows=5000 avg_insert_values_bytes=212 max=488
batch 1000 -> ~212 KB avg, ~488 KB worst case''', desc="估算 1000 条一批的 SQL 大小", secs=18)
    s.say("1000 条一批最坏大约 0.5 MB。RDS MySQL 8.0 默认 `max_allowed_packet` 是 64 MB，除非你们改小过，否则够用。")
    t1 = s.bash_bg("mvn -q verify -Pit", "集成测试（Testcontainers MySQL + MiniCluster）")
    s.say("集成测试在后台跑（Testcontainers 起 MySQL，大概两分钟）。")
    out = s.task_notification(t1, "集成测试（Testcontainers MySQL + MiniCluster）", status="failed", exit_code=1, wait=130)
    s.read(out, IT_FAIL)
    s.say(
        "失败了，关键在中间：`order 90000017: expected: <PAID> but was: <CREATED>`——同一订单先写了 PAID，又被更早的 CREATED 覆盖。\n\n"
        "原因：sink 并行度 4，但 sink 前面没有 `keyBy`，是 rebalance 分发的，同一个订单的 CREATED 和 PAID 可能进不同的 sink 子任务。"
        "batch=1 时几乎是来一条写一条，乱序窗口很小；现在每个子任务攒 200 ms / 1000 条再写，哪个子任务先 flush 就不确定了，"
        "旧状态可能后写。sink 前按 `order_id` keyBy，同一订单永远进同一个子任务，批内按顺序写："
    )
    s.read("src/main/java/com/qianniu/rt/orderwide/OrderWidePipeline.java", '''    public static DataStream<OrderWide> build(StreamExecutionEnvironment env, JobConfig cfg) {
        DataStream<OrderEvent> orders = KafkaSources.orders(env, cfg);
        DataStream<PaymentEvent> payments = KafkaSources.payments(env, cfg);
        return orders
                .keyBy(OrderEvent::orderId)
                .connect(payments.keyBy(PaymentEvent::orderId))
                .process(new OrderWideJoin())
                .name("join-order-payment");
    }''')
    s.edit("src/main/java/com/qianniu/rt/orderwide/OrderWideJob.java", '''        wide.addSink(JdbcSink.sink(''', '''        // 按 order_id keyBy：同一订单必须进同一个 sink 子任务，否则攒批后 CREATED 可能比 PAID 晚写（覆盖新状态）
        wide.keyBy(OrderWide::orderId).addSink(JdbcSink.sink(''')
    s.bash("mvn -q verify -Pit 2>&1 | grep -E 'Tests run:|BUILD|ERROR' | tail -5", '''[INFO] Tests run: 3, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 64.11 s -- in com.qianniu.rt.orderwide.OrderWideSinkIT
[INFO] Tests run: 14, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 3.82 s -- in com.qianniu.rt.orderwide.OrderWidePipelineTest
[INFO] Tests run: 17, Failures: 0, Errors: 0, Skipped: 0
[INFO] BUILD SUCCESS''', desc="集成测试（keyBy 之后）", secs=140, timeout=600000)
    s.bash("mvn -q verify -Pit,perf -Dit.test=SinkThroughputIT 2>&1 | grep -E 'rows/s|checkpoint'", '''SinkThroughputIT batchSize=1    rewrite=false  -> 1,840 rows/s, checkpoint 3/3 expired (timeout 60s)
SinkThroughputIT batchSize=1000 rewrite=true   -> 41,200 rows/s, checkpoint 3/3 completed, max 4.1s''', desc="吞吐对比测试", secs=120, timeout=600000)
    s.say("吞吐从约 1.8k 提到约 41k 行/秒，同样的数据量下 checkpoint 全部在 5 秒内完成。打包之后我可以直接在生产集群上用 savepoint 停掉旧作业、用新 jar 启动：")
    s.bash("mvn -q -DskipTests package && ls -lh target/*.jar", '''-rw-r--r-- 1 chenlei chenlei 48M Mar 24 10:58 target/rt-order-wide-1.9.0.jar''', desc="打包", secs=40)
    s.bash_rejected("flink stop --savepointPath oss://qn-flink/savepoints/order-wide -m rm-flink-prod.qianniu.internal:8081 3f9e1c0a7b2d4e8f9a6c5b4d3e2f1a0b",
                    desc="生产作业 savepoint 停止",
                    reason="生产作业不能命令行停，只能走实时计算平台发版，平台会记录 savepoint 和版本，命令行停了平台那边状态就乱了。今晚低峰我自己在平台上发")
    s.say("明白，不碰生产集群。jar 已经打好，等你晚上在平台上发布。")
    s.bash("git add -A && git commit -qm 'sink: batch 1000 + rewriteBatchedStatements + keyBy order_id，checkpoint 超时恢复 10 分钟' && git log --oneline -1",
           "c47d9e2 sink: batch 1000 + rewriteBatchedStatements + keyBy order_id，checkpoint 超时恢复 10 分钟", desc="提交")
    s.say(
        "总结：\n\n"
        "- **根因**：JDBC sink `batchSize=1`，URL 没有 `rewriteBatchedStatements=true`，每条一次往返，sink 反压，barrier 过不去。\n"
        "- **无效**：checkpoint 超时 30 分钟（昨天试的），已改回 10 分钟。\n"
        "- **不采用**：unaligned checkpoint（你们之前 state 涨到 40 多 G，恢复半小时）。\n"
        "- **修改**：batch 1000 / 200 ms，`rewriteBatchedStatements=true`；sink 前按 `order_id` `keyBy`（攒批后不同子任务 flush 先后不定，旧的 CREATED 会覆盖 PAID）。\n"
        "- 集成测试 17 个通过，吞吐 1.8k → 41k 行/秒。\n\n"
        "待确认：生产 RDS 的 `max_allowed_packet`（一批最坏约 0.5 MB）。"
    )
    s.turn_end()
    s.user(
        "好。今晚 10 点以后我在平台上发。max_allowed_packet 我问下 DBA 老周有没有改过。"
        "还有个事没搞清：下游报表那边说 pay_amount 偶尔对不上，不知道跟这个有没有关系，先记着",
        wait=55,
    )
    s.say("好的。有一种可能：sink 前没有 keyBy 的问题在 batch=1 时也存在，只是乱序窗口小，偶尔旧的一条后写，pay_amount 就会是旧值。发布后可以看对不上的订单是不是都有多次更新。")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Flink 1.17 DataStream job with a JDBC sink to MySQL, resumed the next morning with the state restated in the first prompt, Chinese",
        "a failed attempt told only in the restating prompt (checkpoint timeout 30 minutes, job crashed once)",
        "root cause batchSize 1 without rewriteBatchedStatements; the user's choice against unaligned checkpoints with his reason (40 GB state, 30-minute recovery)",
        "background IT failing (PAID overwritten by CREATED) in the middle of a Flink/Maven log: no keyBy before the batched sink",
        "`flink stop` on the prod cluster rejected with a rule (only via the platform)",
        "todos (deploy tonight after 10 p.m.), a question for the DBA (max_allowed_packet) and an unexplained pay_amount mismatch in the last message",
    ],
    "language": "zh",
    "empty": False,
    "items": [
        {"id": "f1", "type": "failed_attempt",
         "match": [["30 分钟", "超时"], ["checkpoint"]],
         "note": "checkpoint 超时从 10 分钟改到 30 分钟没用（作业还挂过一次）；超时不是根因，已改回 10 分钟。"},
        {"id": "b1", "type": "bug_note",
         "match": [["batchSize", "withBatchSize", "batch"], ["rewriteBatchedStatements"]],
         "note": "checkpoint 超时根因：JDBC sink batchSize=1 且 URL 没有 rewriteBatchedStatements=true，每条一次往返，sink 反压，barrier 过不去。"},
        {"id": "d1", "type": "decision",
         "match": [["unaligned"], ["40", "恢复", "state"]],
         "note": "不开 unaligned checkpoint，改提升 sink 吞吐：之前别的作业开过，state 涨到 40 多 G，恢复一次半小时。"},
        {"id": "b2", "type": "bug_note",
         "match": [["keyBy"], ["order_id", "订单"], ["CREATED", "PAID", "乱序", "覆盖"]],
         "note": "sink 前没有 keyBy，同一订单的更新进不同 sink 子任务；攒批后 flush 先后不定，旧的 CREATED 覆盖 PAID。sink 前按 order_id keyBy。"},
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["平台"], ["命令行", "flink stop"]],
         "note": "生产作业不能命令行停，只能走实时计算平台发版（平台记录 savepoint 和版本）。"},
        {"id": "t1", "type": "todo",
         "match": [["10 点", "今晚"], ["平台", "发"]],
         "note": "今晚 10 点以后在平台上发布新版本。"},
        {"id": "q1", "type": "open_question",
         "match": [["max_allowed_packet"], ["老周", "DBA"]],
         "note": "生产 RDS 的 max_allowed_packet 有没有改小过？问 DBA 老周。"},
        {"id": "q2", "type": "open_question",
         "match": [["pay_amount"], ["对不上"]],
         "note": "下游报表说 pay_amount 偶尔对不上，是否与之前的主键冲突重试有关，未查清。"},
        {"id": "v1", "type": "verified_command", "command": "mvn -q verify -Pit"},
    ],
    "secrets": [],
    "forbidden": [["task-notification"], ["doesn't want to proceed"]],
}
