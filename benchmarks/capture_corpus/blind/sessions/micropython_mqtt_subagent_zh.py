# ruff: noqa: E501  (verbatim command output and file contents)
"""MicroPython ESP32 sensor losing MQTT after hours; a Task subagent writes the reconnect wrapper; flashing rejected (Chinese)."""

from make_sessions import Call, Session

MAIN_PY = '''import time
import ujson
from machine import UART, WDT
from umqtt.simple import MQTTClient
import config

uart = UART(2, baudrate=9600, rx=16, tx=17)
client = MQTTClient(config.DEVICE_ID, config.BROKER, keepalive=config.KEEPALIVE)


class Log:
    def __init__(self):
        self.buf = ""

    def add(self, msg):
        self.buf += "%d %s\\n" % (time.time(), msg)


log = Log()


def read_pm():
    frame = uart.read(10)
    if not frame or frame[0] != 0xAA or frame[1] != 0xC0:
        return None
    return (frame[2] | frame[3] << 8) / 10, (frame[4] | frame[5] << 8) / 10


client.connect()
while True:
    pm = read_pm()
    if pm:
        client.publish(config.TOPIC, ujson.dumps({"pm25": pm[0], "pm10": pm[1]}))
        log.add("pub %s" % (pm,))
    time.sleep(10)
'''

CONFIG_PY = '''DEVICE_ID = b"aq-lab-07"
BROKER = "mqtt.lvchuang.local"
TOPIC = b"aq/lab/07"
KEEPALIVE = 0
'''

AGENT_PROMPT = """在 /home/xu/iot/aq-node（MicroPython 1.20，ESP32，umqtt.simple）里写 lib/mqtt_keep.py：
- 类 KeepClient 包装 umqtt.simple.MQTTClient：publish 失败（OSError）时关闭 socket，按指数退避重连（1 s 起，翻倍，上限 60 s），重连成功后重发这一条。
- 每 30 s 调一次 ping()，并调用 check_msg() 读走 PINGRESP。
- 不许用 uasyncio，不许用线程（_thread）。只用 time、umqtt.simple。
- 写 tests/test_mqtt_keep.py，用假的 MQTTClient（可以让它第 N 次 publish 抛 OSError 113），在 unix 端口上跑：micropython tests/test_mqtt_keep.py
- 改了哪些文件、跑了什么，报告给我。"""

AGENT_REPORT = """完成。

- **lib/mqtt_keep.py**（新）：`KeepClient(factory, clock=time)`，`publish()` 失败时 `_reconnect()`：关 socket，退避 1→2→4…→60 s，`connect()` 成功后重发。`tick()` 每 30 s `ping()` + `check_msg()`。`clock` 可注入，测试里不真的 sleep。
- **tests/test_mqtt_keep.py**（新）：4 个用例（第 3 次 publish 抛 113 后重发成功；连续失败时退避序列 1,2,4,8,…,60,60；tick 间隔；ping 失败也走重连）。
- `micropython tests/test_mqtt_keep.py` → 4 个用例全部通过。

另外顺手看到：config.py 里 `KEEPALIVE = 0`，也就是完全关掉了 MQTT 心跳，broker 和中间的网络设备都看不到这条连接有活动。我没有改 config.py，留给你决定。"""


def build() -> Session:
    s = Session("micropython-mqtt-subagent-zh", cwd="/home/xu/iot/aq-node", branch="fix/mqtt-reconnect",
                start="2026-03-20T02:15:48.019Z", version="2.1.59", slug="reconnecting-sensor-crane", stop_reasons=True)
    s.user(
        "实验室那台 aq-lab-07 跑几个小时就不再上报了，串口最后是这个：\n\n"
        "Traceback (most recent call last):\n  File \"main.py\", line 37, in <module>\n  File \"umqtt/simple.py\", line 134, in publish\n"
        "OSError: [Errno 113] ECONNABORTED\n\n"
        "然后就停在那儿，看门狗也没复位。帮我改一下。先说好：不要用 uasyncio，我们这个固件版本上它和 UART 中断一起用有坑，之前踩过。"
        "固件必须保持 1.20，现场 12 台设备没法 OTA 升固件",
        wait=5,
    )
    s.call(s.read_call("main.py", MAIN_PY), s.read_call("config.py", CONFIG_PY))
    s.say(
        "看了一下，问题有三个：\n"
        "1. `publish` 抛 `OSError` 之后没有任何重连，主循环直接因为异常退出——所以停住了。`WDT` "
        "虽然 import 了，但从来没创建，看门狗根本没开。\n"
        "2. `Log.buf` 每次发布都 `+=`，永远不清，几个小时后堆会被它占满。\n"
        "3. 重连逻辑需要退避和心跳。\n\n"
        "我列个计划，重连那部分交给子代理写（带测试），我这边处理日志和看门狗。"
    )
    s.todo([("重连 + 退避 + 心跳（子代理）", "in_progress", "子代理在写 KeepClient"),
            ("Log 缓冲区限制大小", "pending", "修 Log 缓冲区"),
            ("启用 WDT", "pending", "启用看门狗"),
            ("unix 端口上跑测试", "pending", "跑测试")])
    s.call(Call("Task", {"description": "KeepClient: MQTT reconnect with backoff", "prompt": AGENT_PROMPT,
                         "subagent_type": "general-purpose"},
                [{"type": "text", "text": AGENT_REPORT},
                 {"type": "text", "text": "agentId: c4e19a7 (for resuming to continue this agent's work if needed)"}],
                {"status": "completed", "prompt": AGENT_PROMPT, "agentId": "c4e19a7",
                 "content": [{"type": "text", "text": AGENT_REPORT}], "totalDurationMs": 203511,
                 "totalTokens": 35402, "totalToolUseCount": 11,
                 "usage": {"input_tokens": 5, "cache_creation_input_tokens": 3902,
                           "cache_read_input_tokens": 30118, "output_tokens": 1377}}, secs=204))
    s.say(
        "子代理提到的 `KEEPALIVE = 0` 很关键。实验室这台走的是 4G 路由器，运营商 NAT 一般 5 分钟"
        "左右就回收空闲的 TCP 映射。心跳关掉后，每次 10 秒一条的发布之间如果 UART 读不到数据（传感器"
        "在风扇清洁周期会停几分钟），连接就空闲超过 NAT 超时，映射被回收，下一次 `publish` 就是 "
        "`ECONNABORTED`。所以光重连不够，要把心跳打开：keepalive 60 s，KeepClient 每 30 s ping 一次，"
        "比 NAT 超时短得多。"
    )
    s.edit("config.py", "KEEPALIVE = 0", "KEEPALIVE = 60  # 4G 路由 NAT 约 5 分钟回收空闲连接；0 会导致 ECONNABORTED")
    s.todo([("重连 + 退避 + 心跳（子代理）", "completed", "子代理在写 KeepClient"),
            ("Log 缓冲区限制大小", "in_progress", "修 Log 缓冲区"),
            ("启用 WDT", "pending", "启用看门狗"),
            ("unix 端口上跑测试", "pending", "跑测试")])
    s.say("先试最省事的：每轮循环 `gc.collect()`，看看在 64 KB 堆的 unix 端口上能不能撑住模拟的 2 小时。")
    s.edit("main.py", '''    time.sleep(10)''', '''    gc.collect()
    time.sleep(10)''')
    s.edit("main.py", '''import time
import ujson''', '''import gc
import time
import ujson''')
    s.bash("micropython -X heapsize=64k tests/soak_log.py --hours 2 2>&1 | tail -3", '''hour 1: free 21840
Traceback (most recent call last):
MemoryError: memory allocation failed, allocating 40961 bytes''', desc="模拟 2 小时（64k 堆）", secs=40)
    s.say(
        "不出所料，`gc.collect()` 没用：那个字符串还被 `log.buf` 引用着，收不回来，而且每次 `+=` "
        "都要分配一块更大的连续内存。改成只保留最近 20 行（MicroPython 的 `deque` 必须给 maxlen，正好）。"
        "`gc.collect()` 这行去掉。"
    )
    s.edit("main.py", '''    gc.collect()
    time.sleep(10)''', '''    time.sleep(10)''')
    s.edit("main.py", '''import gc
import time''', '''import time
from collections import deque''')
    s.edit("main.py", '''        self.buf = ""

    def add(self, msg):
        self.buf += "%d %s\\n" % (time.time(), msg)''', '''        # 只留最近 20 行：原来的 buf += 永不清理，几小时后 MemoryError
        self.lines = deque((), 20)

    def add(self, msg):
        self.lines.append("%d %s" % (time.time(), msg))''')
    s.bash("micropython -X heapsize=64k tests/soak_log.py --hours 2", '''hour 1: free 38112
hour 2: free 38096
ok''', desc="模拟 2 小时（64k 堆）", secs=40)
    s.edit("main.py", '''client.connect()
while True:
    pm = read_pm()
    if pm:
        client.publish(config.TOPIC, ujson.dumps({"pm25": pm[0], "pm10": pm[1]}))''', '''wdt = WDT(timeout=120_000)
client = KeepClient(lambda: MQTTClient(config.DEVICE_ID, config.BROKER, keepalive=config.KEEPALIVE))
client.connect()
while True:
    wdt.feed()
    client.tick()
    pm = read_pm()
    if pm:
        client.publish(config.TOPIC, ujson.dumps({"pm25": pm[0], "pm10": pm[1]}))''')
    s.edit("main.py", '''client = MQTTClient(config.DEVICE_ID, config.BROKER, keepalive=config.KEEPALIVE)
''', '''from mqtt_keep import KeepClient
''')
    s.bash("micropython tests/test_mqtt_keep.py && micropython -X heapsize=64k tests/soak_log.py --hours 2", '''test_backoff_sequence ... ok
test_ping_interval ... ok
test_ping_failure_reconnects ... ok
test_republish_after_113 ... ok
Ran 4 tests

OK
hour 1: free 37904
hour 2: free 37880
ok''', desc="单元测试 + 内存长测", secs=50)
    s.bash("mpy-cross -march=xtensawin lib/mqtt_keep.py && mpy-cross -march=xtensawin main.py", "", desc="按 1.20 的 mpy-cross 编译检查")
    s.say("都过了。刷到实验室那台上验证：")
    s.bash_rejected("mpremote connect /dev/ttyUSB0 cp -r lib/ : + cp main.py config.py : + reset", desc="刷到 aq-lab-07",
                    reason="先别往板子上刷，/dev/ttyUSB0 上接的是另一台在跑 72 小时长测的。我自己下午拿 07 刷")
    s.todo([("重连 + 退避 + 心跳（子代理）", "completed", "子代理在写 KeepClient"),
            ("Log 缓冲区限制大小", "completed", "修 Log 缓冲区"),
            ("启用 WDT", "completed", "启用看门狗"),
            ("unix 端口上跑测试", "completed", "跑测试")])
    s.say(
        "好，没刷。改动汇总：\n"
        "- `lib/mqtt_keep.py`（子代理写的）：`publish` 失败时退避重连（1 s 起，上限 60 s）并重发；每 30 s `ping()` + `check_msg()`。\n"
        "- `config.py`：`KEEPALIVE` 0 → 60。根因：4G 路由的 NAT 回收空闲连接，心跳关着，下一次 publish 就 ECONNABORTED。\n"
        "- `main.py`：日志只留最近 20 行；真正启用 `WDT(120 s)`。\n"
        "- `micropython tests/test_mqtt_keep.py` 4 个用例通过，64 KB 堆模拟 2 小时内存稳定，`mpy-cross` 编译通过。没有用 uasyncio，也没动固件。"
    )
    s.turn_end()
    s.user(
        "行。现场那 12 台下周去现场的时候我手动刷。另外不确定 EMQX 那边有没有设空闲断开时间，回头问一下运维小周",
        wait=100,
    )
    s.say("好的。")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "MicroPython 1.20 on ESP32 (umqtt.simple, UART sensor, WDT), unix-port tests and mpy-cross, Chinese",
        "two rules with reasons in the first prompt (no uasyncio: bug with UART interrupts; firmware stays 1.20, no OTA in the field)",
        "TodoWrite progress; a Task subagent writing the reconnect wrapper and its tests, reporting KEEPALIVE = 0 in passing",
        "root cause explained in text after the subagent's report (4G NAT drops idle TCP)",
        "gc.collect() tried and failing behind `| tail` (MemoryError), ring buffer instead",
        "flashing with mpremote rejected with a reason; todo and open question in the last message",
    ],
    "language": "zh",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["uasyncio"], ["UART", "坑"]],
         "note": "不要用 uasyncio：在这个固件版本上和 UART 中断一起用有坑。"},
        {"id": "c2", "type": "constraint",
         "match": [["1.20"], ["OTA", "12 台"]],
         "note": "固件必须保持 MicroPython 1.20：现场 12 台设备没法 OTA 升固件。"},
        {"id": "b1", "type": "bug_note",
         "match": [["KEEPALIVE", "心跳"], ["NAT"], ["ECONNABORTED", "113"]],
         "note": "aq-lab-07 几小时后 ECONNABORTED：KEEPALIVE = 0 关了心跳，4G 路由 NAT 约 5 分钟回收空闲连接。"},
        {"id": "d1", "type": "decision",
         "match": [["退避", "重连"], ["60"], ["ping"]],
         "note": "KeepClient：publish 失败退避重连（1 s 起，上限 60 s）并重发，每 30 s ping；keepalive 设 60。"},
        {"id": "b2", "type": "bug_note",
         "match": [["buf"], ["MemoryError"], ["20 行", "deque"]],
         "note": "Log.buf 每次 += 从不清理，几小时后 MemoryError；改为只留最近 20 行的 deque。"},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "bug_note"],
         "match": [["gc.collect"], ["没用", "MemoryError"]],
         "note": "每轮 gc.collect() 没用：字符串仍被 log.buf 引用。"},
        {"id": "b3", "type": "bug_note", "required": False,
         "match": [["WDT"], ["从来没创建", "没开"]],
         "note": "WDT 只 import 了从没创建，看门狗根本没开；现在 WDT(120 s)。"},
        {"id": "p1", "type": "preference", "types": ["preference", "constraint"],
         "match": [["ttyUSB0", "刷"], ["72 小时", "长测"]],
         "note": "别往 /dev/ttyUSB0 上刷：接的是另一台在跑 72 小时长测的板子；07 由用户自己刷。"},
        {"id": "t1", "type": "todo",
         "match": [["12 台"], ["下周", "手动刷"]],
         "note": "现场 12 台下周去现场时手动刷。"},
        {"id": "q1", "type": "open_question",
         "match": [["EMQX"], ["小周", "空闲断开"]],
         "note": "EMQX 有没有设空闲断开时间？问运维小周。"},
        {"id": "v1", "type": "verified_command", "command": "micropython tests/test_mqtt_keep.py && micropython -X heapsize=64k tests/soak_log.py --hours 2"},
        {"id": "v2", "type": "verified_command", "command": "micropython -X heapsize=64k tests/soak_log.py --hours 2", "required": False},
        {"id": "v3", "type": "verified_command", "command": "mpy-cross -march=xtensawin lib/mqtt_keep.py && mpy-cross -march=xtensawin main.py", "required": False},
    ],
    "secrets": [],
    "forbidden": [["agentId:"], ["for resuming to continue this agent"], ["doesn't want to proceed"], ["Todos have been modified"]],
}
