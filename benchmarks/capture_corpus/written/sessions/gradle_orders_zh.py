# ruff: noqa: E501  (verbatim command output and file contents)
"""Spring Boot / Gradle order service: duplicate Kafka messages double-decrement stock (Chinese)."""

from make_sessions import Session

CONSUMER = '''package com.shopline.orders.messaging;

import com.shopline.orders.inventory.InventoryRepository;
import com.shopline.orders.order.OrderRepository;
import com.shopline.orders.order.OrderStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

@Component
public class OrderEventConsumer {

    private static final Logger log = LoggerFactory.getLogger(OrderEventConsumer.class);

    private final OrderRepository orders;
    private final InventoryRepository inventory;

    public OrderEventConsumer(OrderRepository orders, InventoryRepository inventory) {
        this.orders = orders;
        this.inventory = inventory;
    }

    @KafkaListener(topics = "order-events", groupId = "orders-inventory")
    @Transactional
    public void onEvent(OrderEvent event) {
        if (event.type() != OrderEvent.Type.PAID) {
            return;
        }
        var order = orders.findById(event.orderId()).orElseThrow();
        for (var line : order.lines()) {
            int updated = inventory.decrement(line.sku(), line.quantity());
            if (updated == 0) {
                log.warn("库存不足 sku={} order={}", line.sku(), order.id());
                order.markBackordered(line.sku());
            }
        }
        order.setStatus(OrderStatus.RESERVED);
        orders.save(order);
    }
}
'''

TEST = '''package com.shopline.orders.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import com.shopline.orders.inventory.InventoryRepository;
import com.shopline.orders.order.OrderRepository;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

@SpringBootTest
class OrderEventConsumerTest {

    @Autowired OrderEventConsumer consumer;
    @Autowired OrderRepository orders;
    @Autowired InventoryRepository inventory;

    @Test
    void paidEventReservesStock() {
        var order = TestOrders.paidOrder(orders, "SKU-1", 2);
        inventory.setStock("SKU-1", 10);

        consumer.onEvent(OrderEvent.paid("evt-1", order.id()));

        assertThat(inventory.stockOf("SKU-1")).isEqualTo(8);
    }
}
'''

MIGRATION = '''-- 已处理的消息（Kafka 至少一次投递，消费者靠它做幂等）
CREATE TABLE processed_events (
    event_id     VARCHAR(64)  PRIMARY KEY,
    consumer     VARCHAR(64)  NOT NULL,
    processed_at TIMESTAMPTZ  NOT NULL DEFAULT now()
);
'''

REPO = '''package com.shopline.orders.messaging;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

@Repository
public class ProcessedEventRepository {

    private final JdbcTemplate jdbc;

    public ProcessedEventRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** 返回 false 表示这条消息已经处理过（同一事务内插入，冲突即重复）。 */
    public boolean markProcessed(String eventId, String consumer) {
        int rows = jdbc.update(
                "INSERT INTO processed_events (event_id, consumer) VALUES (?, ?) ON CONFLICT DO NOTHING",
                eventId, consumer);
        return rows == 1;
    }
}
'''


def build() -> Session:
    s = Session("gradle-orders-zh", cwd="/Users/chenwei/work/order-service", branch="fix/consumer-idempotency",
                start="2026-03-11T02:14:09.551Z", version="2.1.50", slug="calm-tracing-willow")
    s.user(
        "订单消费者收到重复消息的时候会重复扣库存，上周有两个 SKU 被扣成负数了。帮我看一下 "
        "orders 模块里的 OrderEventConsumer。\n\n"
        "另外两条规矩：项目里不要用 Lombok，我们上个月刚把它全部去掉；每个方法不要超过 40 行，"
        "checkstyle 会卡。",
        wait=5,
    )
    s.call(s.read_call("orders/src/main/java/com/shopline/orders/messaging/OrderEventConsumer.java", CONSUMER),
           s.read_call("orders/src/test/java/com/shopline/orders/messaging/OrderEventConsumerTest.java", TEST))
    s.say(
        "问题很清楚：`onEvent` 没有任何去重。Kafka 只保证至少一次投递——消费者重平衡、提交 "
        "offset 之前超时，都会让同一条 `PAID` 消息再来一次，然后库存再扣一遍。\n\n"
        "先写一个能复现的测试：同一个事件投两次，库存应该只扣一次。"
    )
    s.edit("orders/src/test/java/com/shopline/orders/messaging/OrderEventConsumerTest.java",
           '''        assertThat(inventory.stockOf("SKU-1")).isEqualTo(8);
    }
}''', '''        assertThat(inventory.stockOf("SKU-1")).isEqualTo(8);
    }

    @Test
    void duplicateEventDecrementsOnce() {
        var order = TestOrders.paidOrder(orders, "SKU-2", 1);
        inventory.setStock("SKU-2", 5);
        var event = OrderEvent.paid("evt-dup", order.id());

        consumer.onEvent(event);
        consumer.onEvent(event);

        assertThat(inventory.stockOf("SKU-2")).isEqualTo(4);
    }
}''')
    s.bash("./gradlew :orders:test --tests '*OrderEventConsumerTest*' 2>&1 | tail -20", """\
> Task :orders:test FAILED

OrderEventConsumerTest > duplicateEventDecrementsOnce() FAILED
    org.opentest4j.AssertionFailedError:
    expected: 4
     but was: 3
        at app//com.shopline.orders.messaging.OrderEventConsumerTest.duplicateEventDecrementsOnce(OrderEventConsumerTest.java:38)

2 tests completed, 1 failed

FAILURE: Build failed with an exception.

* What went wrong:
Execution failed for task ':orders:test'.
> There were failing tests. See the report at: file:///Users/chenwei/work/order-service/orders/build/reports/tests/test/index.html

BUILD FAILED in 14s""", desc="跑消费者测试", secs=16.0)
    s.say(
        "复现了：5 → 3，扣了两次。\n\n"
        "修法：新建 `processed_events` 表，`event_id` 做主键，消费者在扣库存的同一个事务里先插入"
        "这条记录。重复消息插入时冲突，直接返回，不会再扣。放在同一个事务里是关键——如果扣库存"
        "失败回滚，记录也一起回滚，下次重投还能正常处理；单独先写记录再扣库存的话，中间崩溃就"
        "会丢消息。用 `ON CONFLICT DO NOTHING` 而不是捕获异常，是因为 Postgres 里唯一约束冲突会"
        "把整个事务标成 aborted。"
    )
    s.call(s.write_call("orders/src/main/resources/db/migration/V23__processed_events.sql", MIGRATION),
           s.write_call("orders/src/main/java/com/shopline/orders/messaging/ProcessedEventRepository.java", REPO))
    s.edit("orders/src/main/java/com/shopline/orders/messaging/OrderEventConsumer.java",
           '''    private final OrderRepository orders;
    private final InventoryRepository inventory;

    public OrderEventConsumer(OrderRepository orders, InventoryRepository inventory) {
        this.orders = orders;
        this.inventory = inventory;
    }''', '''    private static final String CONSUMER = "orders-inventory";

    private final OrderRepository orders;
    private final InventoryRepository inventory;
    private final ProcessedEventRepository processed;

    public OrderEventConsumer(
            OrderRepository orders, InventoryRepository inventory, ProcessedEventRepository processed) {
        this.orders = orders;
        this.inventory = inventory;
        this.processed = processed;
    }''')
    s.edit("orders/src/main/java/com/shopline/orders/messaging/OrderEventConsumer.java",
           '''        if (event.type() != OrderEvent.Type.PAID) {
            return;
        }
        var order''', '''        if (event.type() != OrderEvent.Type.PAID) {
            return;
        }
        if (!processed.markProcessed(event.eventId(), CONSUMER)) {
            log.info("重复消息，跳过 event={} order={}", event.eventId(), event.orderId());
            return;
        }
        var order''')
    s.bash("./gradlew :orders:test --tests '*OrderEventConsumerTest*' 2>&1 | tail -20", """\
> Task :orders:compileJava
> Task :orders:processResources
> Task :orders:compileTestJava
> Task :orders:test

BUILD SUCCESSFUL in 19s
7 actionable tasks: 4 executed, 3 up-to-date""", desc="跑消费者测试", secs=21.0)
    s.say(
        "单元测试过了。不过这个测试是直接调用 `onEvent`，没经过真正的 Kafka 重投路径。我加一个"
        "用 Testcontainers 起 Kafka 的集成测试，真实地重复投递一次。"
    )
    s.read("orders/build.gradle.kts", '''plugins {
    id("shopline.java-service")
}

dependencies {
    implementation(project(":common"))
    implementation("org.springframework.boot:spring-boot-starter-data-jdbc")
    implementation("org.springframework.kafka:spring-kafka")
    implementation("org.flywaydb:flyway-core")
    runtimeOnly("org.postgresql:postgresql")

    testImplementation("org.springframework.boot:spring-boot-starter-test")
    testImplementation("org.springframework.kafka:spring-kafka-test")
    testImplementation("com.h2database:h2")
}
''')
    s.edit("orders/build.gradle.kts", '''    testImplementation("com.h2database:h2")
}''', '''    testImplementation("com.h2database:h2")
    testImplementation("org.testcontainers:kafka:1.20.4")
    testImplementation("org.testcontainers:junit-jupiter:1.20.4")
}''')
    s.write("orders/src/integrationTest/java/com/shopline/orders/messaging/RedeliveryIT.java", '''package com.shopline.orders.messaging;

import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.kafka.KafkaContainer;

@Testcontainers
class RedeliveryIT {

    @Container
    static KafkaContainer kafka = new KafkaContainer("apache/kafka:3.8.0");

    @Test
    void redeliveredPaidEventIsProcessedOnce() {
        // publish the same PAID event twice, wait for the listener, assert stock decremented once
    }
}
''')
    s.bash("./gradlew :orders:integrationTest", """\
> Task :orders:integrationTest

RedeliveryIT > initializationError FAILED
    java.lang.IllegalStateException: Could not find a valid Docker environment. Please see logs and check configuration
        at org.testcontainers.dockerclient.DockerClientProviderStrategy.lambda$getFirstValidStrategy$7(DockerClientProviderStrategy.java:274)

1 test completed, 1 failed

BUILD FAILED in 9s""", code=1, desc="跑集成测试", secs=12.0)
    s.say("本机没有运行中的 Docker。你那边方便启动 Docker Desktop 吗？还是 CI 上有 Docker 可以跑？")
    s.turn_end()
    s.user(
        "CI 上没有 Docker，runner 是共享的，不让跑容器。别用 Testcontainers 了，spring-kafka-test "
        "里有 EmbeddedKafka，用那个。",
        wait=80,
    )
    s.say("明白，撤掉 Testcontainers，改用 `@EmbeddedKafka`，它在 JVM 里起 broker，不需要 Docker。")
    s.edit("orders/build.gradle.kts", '''    testImplementation("com.h2database:h2")
    testImplementation("org.testcontainers:kafka:1.20.4")
    testImplementation("org.testcontainers:junit-jupiter:1.20.4")
}''', '''    testImplementation("com.h2database:h2")
}''')
    s.write("orders/src/integrationTest/java/com/shopline/orders/messaging/RedeliveryIT.java", '''package com.shopline.orders.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.shopline.orders.inventory.InventoryRepository;
import com.shopline.orders.order.OrderRepository;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.test.context.EmbeddedKafka;

@SpringBootTest(properties = "spring.kafka.bootstrap-servers=${spring.embedded.kafka.brokers}")
@EmbeddedKafka(topics = "order-events", partitions = 1)
class RedeliveryIT {

    @Autowired KafkaTemplate<String, OrderEvent> kafka;
    @Autowired OrderRepository orders;
    @Autowired InventoryRepository inventory;
    @Autowired ProcessedEventRepository processed;

    @Test
    void redeliveredPaidEventIsProcessedOnce() {
        var order = TestOrders.paidOrder(orders, "SKU-9", 3);
        inventory.setStock("SKU-9", 10);
        var event = OrderEvent.paid("evt-redelivered", order.id());

        kafka.send("order-events", event.orderId().toString(), event);
        kafka.send("order-events", event.orderId().toString(), event);

        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(inventory.stockOf("SKU-9")).isEqualTo(7));
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                .untilAsserted(() -> assertThat(inventory.stockOf("SKU-9")).isEqualTo(7));
    }
}
''')
    s.bash("./gradlew :orders:integrationTest 2>&1 | tail -15", """\
> Task :orders:compileIntegrationTestJava
> Task :orders:integrationTest

BUILD SUCCESSFUL in 31s
9 actionable tasks: 3 executed, 6 up-to-date""", desc="跑集成测试", secs=34.0)
    s.bash("./gradlew :orders:check 2>&1 | tail -15", """\
> Task :orders:checkstyleMain FAILED
[ant:checkstyle] [ERROR] /Users/chenwei/work/order-service/orders/src/main/java/com/shopline/orders/messaging/OrderEventConsumer.java:37:5: Method length is 27 lines (max allowed is 25). [MethodLength]

FAILURE: Build failed with an exception.

* What went wrong:
Execution failed for task ':orders:checkstyleMain'.
> Checkstyle rule violations were found. See the report at: file:///Users/chenwei/work/order-service/orders/build/reports/checkstyle/main.html

BUILD FAILED in 6s""", desc="完整检查", secs=8.0)
    s.bash("grep -n -B2 -A3 MethodLength config/checkstyle/checkstyle.xml", """\
41-        <module name="MethodLength">
42-            <property name="tokens" value="METHOD_DEF"/>
43-            <property name="max" value="25"/>
44-            <property name="countEmpty" value="false"/>
45-        </module>""", desc="看 checkstyle 配置")
    s.say(
        "checkstyle 的上限是 25 行（不计空行），比你说的 40 行更严，`onEvent` 加了去重之后 27 行。"
        "我把扣库存的循环拆成 `reserveLines(order)`，两个方法都在上限以内。"
    )
    s.edit("orders/src/main/java/com/shopline/orders/messaging/OrderEventConsumer.java",
           '''        var order = orders.findById(event.orderId()).orElseThrow();
        for (var line : order.lines()) {
            int updated = inventory.decrement(line.sku(), line.quantity());
            if (updated == 0) {
                log.warn("库存不足 sku={} order={}", line.sku(), order.id());
                order.markBackordered(line.sku());
            }
        }
        order.setStatus(OrderStatus.RESERVED);
        orders.save(order);
    }''', '''        var order = orders.findById(event.orderId()).orElseThrow();
        reserveLines(order);
        order.setStatus(OrderStatus.RESERVED);
        orders.save(order);
    }

    private void reserveLines(Order order) {
        for (var line : order.lines()) {
            int updated = inventory.decrement(line.sku(), line.quantity());
            if (updated == 0) {
                log.warn("库存不足 sku={} order={}", line.sku(), order.id());
                order.markBackordered(line.sku());
            }
        }
    }''')
    s.edit("orders/src/main/java/com/shopline/orders/messaging/OrderEventConsumer.java",
           "import com.shopline.orders.order.OrderRepository;",
           "import com.shopline.orders.order.Order;\nimport com.shopline.orders.order.OrderRepository;")
    s.bash("./gradlew :orders:check 2>&1 | tail -15", """\
> Task :orders:checkstyleMain
> Task :orders:checkstyleTest
> Task :orders:test
> Task :orders:integrationTest
> Task :orders:check

BUILD SUCCESSFUL in 58s
14 actionable tasks: 6 executed, 8 up-to-date""", desc="完整检查", secs=60.0)
    s.say(
        "完成：\n\n"
        "- **原因**：`OrderEventConsumer` 没有去重，Kafka 重投的 `PAID` 消息会再扣一次库存。\n"
        "- **修复**：`V23__processed_events.sql` 新表，`event_id` 主键；消费者在扣库存的同一事务里"
        "先 `INSERT ... ON CONFLICT DO NOTHING`，插不进去就是重复消息，直接跳过。\n"
        "- **测试**：单元测试（同一事件调用两次）+ `RedeliveryIT`（`@EmbeddedKafka` 真实重投两次），"
        "没有用 Docker。`:orders:check` 全过，checkstyle 的方法长度也满足。\n"
        "- 没有引入 Lombok，构造器注入是手写的。\n\n"
        "还没定的事：`processed_events` 会一直增长，需要一个清理策略（比如保留 7 天，比 Kafka 的 "
        "retention 长就行），要不要做、由谁来跑，得你们定。"
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Chinese user and replies",
        "rules in the first prompt (no Lombok, method length)",
        "Testcontainers abandoned after the user says CI has no Docker",
        "decision with its why (processed_events in the same transaction)",
        "Gradle failures behind `| tail` and without it",
        "checkstyle failure then pass",
        "open question at the end",
    ],
    "language": "zh",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["Lombok"]],
         "note": "项目里不要用 Lombok（上个月刚全部去掉）。"},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["40"], ["方法"]],
         "note": "每个方法不要超过 40 行（checkstyle 实际上限是 25 行）。"},
        {"id": "c3", "type": "constraint", "types": ["constraint", "preference", "failed_attempt"],
         "match": [["Docker"], ["CI"]],
         "note": "CI 上没有 Docker（共享 runner 不让跑容器），测试不能用 Testcontainers。"},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "decision", "bug_note"],
         "match": [["Testcontainers"], ["EmbeddedKafka", "Docker"]],
         "note": "Testcontainers 起 Kafka 的集成测试因为没有 Docker 失败，改用 @EmbeddedKafka。"},
        {"id": "d1", "type": "decision",
         "match": [["processed_events"], ["同一个事务", "同一事务", "至少一次", "幂等"]],
         "note": "消费者靠 processed_events 表（event_id 主键）在扣库存的同一事务里去重，因为 "
                 "Kafka 只保证至少一次投递。"},
        {"id": "d2", "type": "decision", "required": False,
         "match": [["ON CONFLICT"], ["aborted", "事务"]],
         "note": "用 ON CONFLICT DO NOTHING 而不是捕获异常，因为 Postgres 唯一约束冲突会把事务标成 aborted。"},
        {"id": "b1", "type": "bug_note",
         "match": [["重复"], ["库存"], ["去重", "processed_events", "重投"]],
         "note": "重复的 Kafka 消息会重复扣库存（SKU 被扣成负数），OrderEventConsumer 没有去重。"},
        {"id": "b2", "type": "bug_note", "required": False,
         "match": [["MethodLength", "checkstyle"], ["25"]],
         "note": "checkstyle MethodLength 上限是 25 行，onEvent 拆出 reserveLines。"},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo"],
         "match": [["processed_events"], ["清理"]],
         "note": "processed_events 会一直增长，清理策略（比如保留 7 天）还没定。"},
        {"id": "v1", "type": "verified_command",
         "command": "./gradlew :orders:test --tests '*OrderEventConsumerTest*'"},
        {"id": "v2", "type": "verified_command", "command": "./gradlew :orders:integrationTest"},
        {"id": "v3", "type": "verified_command", "command": "./gradlew :orders:check"},
    ],
    "secrets": [],
    "forbidden": [],
}
