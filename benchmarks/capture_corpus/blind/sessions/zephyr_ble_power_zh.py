# ruff: noqa: E501  (verbatim command output and file contents)
"""Zephyr (nRF Connect SDK 2.6) BLE sensor drawing 1.8 mA idle; CONFIG_PM refused by Kconfig; advertising interval decided by the user; background builds (Chinese, a terse senior)."""

from make_sessions import Session

PRJ_CONF = '''CONFIG_BT=y
CONFIG_BT_PERIPHERAL=y
CONFIG_BT_DEVICE_NAME="Zephyr Heartrate Sensor"
CONFIG_I2C=y
CONFIG_SENSOR=y
CONFIG_BME280=y
CONFIG_LOG=y
CONFIG_SERIAL=y
CONFIG_CONSOLE=y
CONFIG_UART_CONSOLE=y
CONFIG_LOG_BACKEND_UART=y
'''

MAIN_C = '''static const struct bt_le_adv_param *adv_param = BT_LE_ADV_CONN;

static int fmt_temp(const struct sensor_value *v, char *buf, size_t len)
{
	return snprintk(buf, len, "%d.%02d", v->val1, abs(v->val2) / 10000);
}

int main(void)
{
	int err = bt_enable(NULL);

	if (err) {
		LOG_ERR("bt_enable failed (%d)", err);
		return 0;
	}
	bt_le_adv_start(adv_param, ad, ARRAY_SIZE(ad), NULL, 0);
	for (;;) {
		read_and_notify();
		k_sleep(K_SECONDS(30));
	}
}
'''

BUILD_OK = '''[212/214] Linking C executable zephyr/zephyr.elf
Memory region         Used Size  Region Size  %age Used
           FLASH:      187364 B         1 MB     17.87%
             RAM:       38120 B       256 KB     14.54%
        IDT_LIST:          0 GB        32 KB      0.00%
[214/214] Generating zephyr/merged.hex'''


def build() -> Session:
    s = Session("zephyr-ble-power-zh", cwd="/home/lin/fw/tempsense", branch="power/idle-current",
                start="2026-03-27T02:14:50.318Z", version="2.1.58", slug="sleepy-radio-crane")
    s.user(
        "板子空闲 1.8 mA，目标 30 µA 以内。release 构建用 prj_release.conf。NCS 固定 2.6，不许升，"
        "SoftDevice Controller 是过了认证的那个版本。日志只走 RTT。",
        wait=4,
    )
    s.call(s.read_call("prj.conf", PRJ_CONF), s.read_call("src/main.c", MAIN_C))
    s.bash("ls; cat prj_release.conf", '''CMakeLists.txt  boards  prj.conf  prj_release.conf  src  tests  west.yml
CONFIG_LOG=y
CONFIG_ASSERT=n''', desc="看一下 release 配置")
    s.say(
        "1.8 mA 基本就是 UART 一直开着的量级：`CONFIG_SERIAL`/`UART_CONSOLE` 会让 UARTE 保持使能，"
        "高频时钟也停不下来。release 里把 UART 全关，日志改 RTT，再关掉 uart0 节点。"
        "另外我先试试打开系统电源管理。"
    )
    s.write("prj_release.conf", '''CONFIG_ASSERT=n

# 日志只走 RTT，不用 UART（UART 空闲也要 ~1 mA）
CONFIG_LOG=y
CONFIG_LOG_BACKEND_RTT=y
CONFIG_LOG_BACKEND_UART=n
CONFIG_USE_SEGGER_RTT=y
CONFIG_SERIAL=n
CONFIG_CONSOLE=n
CONFIG_UART_CONSOLE=n

CONFIG_PM=y
''')
    s.bash("west build -b nrf52840dk_nrf52840 -p -- -DEXTRA_CONF_FILE=prj_release.conf 2>&1 | tail -6", '''warning: PM (defined at soc/arm/nordic_nrf/Kconfig.defconfig:22, subsys/pm/Kconfig:6) was assigned the value 'y' but got the value 'n'. Check these unsatisfied dependencies: SYS_CLOCK_EXISTS (=y), HAS_PM (=n). See http://docs.zephyrproject.org/latest/kconfig.html#CONFIG_PM and/or look up PM in the menuconfig/guiconfig interface.

error: Aborting due to Kconfig warnings

CMake Error at /opt/nordic/ncs/v2.6.1/zephyr/cmake/modules/kconfig.cmake:358 (message):
  command failed with return code: 1''', desc="release 构建", secs=20)
    s.edit("prj_release.conf", '''CONFIG_PM=y
''', '''CONFIG_PM_DEVICE=y
CONFIG_PM_DEVICE_RUNTIME=y
''')
    s.write("boards/nrf52840dk_nrf52840_release.overlay", '''/* release：不用 UART，省电 */
&uart0 {
	status = "disabled";
};
''')
    bid = s.bash_bg("west build -b nrf52840dk_nrf52840 -p -- -DEXTRA_CONF_FILE=prj_release.conf -DDTC_OVERLAY_FILE=boards/nrf52840dk_nrf52840_release.overlay", "release 构建")
    s.say("构建在后台跑。顺便看广播参数：现在是 `BT_LE_ADV_CONN`，默认间隔 100 ms 左右，这个对平均电流影响也很大。")
    q = "广播间隔用多少？"
    s.ask([{"question": q, "header": "广播间隔",
            "options": [("500 ms", "连接快，电流约 +25 µA"), ("1 s", "折中，约 +12 µA")]}],
          {q: "2 秒。App 那边连得慢一点无所谓，电池优先"}, wait=50)
    out = s.task_notification(bid, "release 构建", wait=15)
    s.bash(f"tail -6 {out}", BUILD_OK, desc="看构建结果")
    s.edit("src/main.c", '''static const struct bt_le_adv_param *adv_param = BT_LE_ADV_CONN;''', '''/* 2 s 广播间隔：电池优先，App 连接慢一点可以接受（2 s = 3200 × 0.625 ms） */
static const struct bt_le_adv_param *adv_param =
	BT_LE_ADV_PARAM(BT_LE_ADV_OPT_CONNECTABLE, 3200, 3360, NULL);''')
    s.bash("west twister -T tests/sensor_fmt -p native_posix 2>&1 | tail -8", '''INFO    - 1/1 native_posix              tests/sensor_fmt/sensor.fmt.temp                   FAILED : Failed (native 0.012s)
INFO    - 
START - test_fmt_temp_negative
    Assertion failed at /home/lin/fw/tempsense/tests/sensor_fmt/src/main.c:31: sensor_fmt_test_fmt_temp_negative: (buf not equal to "-0.25")
     FAIL - test_fmt_temp_negative in 0.001 seconds
INFO    - Total complete:    1/   1  100%  skipped:    0, failed:    1, error:    0
INFO    - 0 of 1 executed test configurations passed (0.00%), 1 failed, 0 errored, 0 skipped, 0 filtered, 0 warnings.''', desc="格式化单元测试", secs=25)
    s.say(
        "顺手跑了现有的单元测试，`fmt_temp` 对 -0.25 °C 出错：`sensor_value` 里 -0.25 是 `val1 = 0, "
        "val2 = -250000`，`%d.%02d` 打印成 `0.25`，负号丢了（0 没有符号）。-3 °C 以下没问题，只有 "
        "-1 到 0 之间错。改成先转成毫度再打印。"
    )
    s.edit("src/main.c", '''	return snprintk(buf, len, "%d.%02d", v->val1, abs(v->val2) / 10000);''', '''	int64_t milli = sensor_value_to_milli(v);

	return snprintk(buf, len, "%s%lld.%02lld", milli < 0 ? "-" : "",
			llabs(milli) / 1000, (llabs(milli) % 1000) / 10);''')
    s.bash("west twister -T tests/sensor_fmt -p native_posix 2>&1 | tail -2", '''INFO    - Total complete:    1/   1  100%  skipped:    0, failed:    0, error:    0
INFO    - 1 of 1 executed test configurations passed (100.00%), 0 failed, 0 errored, 0 skipped, 0 filtered, 0 warnings.''', desc="格式化单元测试", secs=22)
    bid2 = s.bash_bg("west build -b nrf52840dk_nrf52840 -p -- -DEXTRA_CONF_FILE=prj_release.conf -DDTC_OVERLAY_FILE=boards/nrf52840dk_nrf52840_release.overlay", "release 构建")
    out2 = s.task_notification(bid2, "release 构建", wait=70)
    s.bash(f"tail -3 {out2}", '''             RAM:       38120 B       256 KB     14.54%
        IDT_LIST:          0 GB        32 KB      0.00%
[214/214] Generating zephyr/merged.hex''', desc="看构建结果")
    s.say(
        "release 构建通过，单元测试通过。改动：\n"
        "- `prj_release.conf`：UART/console 全关，日志走 RTT；`CONFIG_PM_DEVICE(_RUNTIME)`。"
        "`CONFIG_PM=y` 在 nRF52 上被 Kconfig 拒掉（`HAS_PM=n`，系统休眠由 SoC 自己做），已去掉。\n"
        "- release overlay 关掉 `uart0`。\n"
        "- 广播间隔 2 s。\n"
        "- `fmt_temp` 修了 -1~0 °C 丢负号的问题。\n\n"
        "我没法量电流，需要你用 PPK2 测一下。另外 `CONFIG_BT_DEVICE_NAME` 还是 \"Zephyr Heartrate "
        "Sensor\"（示例里带过来的），没改。还有一点不确定：release 里要不要保留 BLE 上的 SMP/DFU？"
        "它会多一个 GATT 服务，但不影响空闲电流。"
    )
    s.turn_end()
    s.user("明天上午 PPK2 量。设备名先别动，App 那边按名字过滤的。DFU 问老周", wait=100)
    s.say("好，设备名不动。")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Zephyr / nRF Connect SDK 2.6 on nRF52840 (BLE, BME280, twister), Chinese, a terse senior",
        "three rules in the first prompt (NCS 2.6 pinned for the certified SoftDevice Controller; logs only over RTT; release config)",
        "CONFIG_PM=y refused by Kconfig behind `| tail`, dropped for device PM",
        "two background builds with <task-notification>s; AskUserQuestion answered in free text with a decision and its reason (2 s, battery first)",
        "a bug found in passing by an existing unit test (negative sign lost between -1 and 0 °C), fixed",
        "a leftover found in passing and kept with the user's reason (device name filtered by the app); todo the user takes; question for a colleague",
    ],
    "language": "zh",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "project_fact"],
         "match": [["NCS", "2.6"], ["认证", "SoftDevice"]],
         "note": "NCS 固定 2.6 不许升级：SoftDevice Controller 是过了认证的版本。"},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["RTT"], ["UART", "日志"]],
         "note": "日志只走 RTT，release 里不用 UART（UART 空闲约 1 mA）。"},
        {"id": "b1", "type": "bug_note", "types": ["bug_note", "decision"],
         "match": [["1.8 mA", "UART"], ["uart0", "CONFIG_SERIAL", "prj_release"]],
         "note": "空闲 1.8 mA 是 UART/console 一直开着造成的；release 配置关掉 SERIAL/console，overlay 里禁用 uart0。"},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "bug_note"],
         "match": [["CONFIG_PM"], ["HAS_PM", "Kconfig"]],
         "note": "nRF52 上 CONFIG_PM=y 被 Kconfig 拒绝（HAS_PM=n），改用 CONFIG_PM_DEVICE / PM_DEVICE_RUNTIME。"},
        {"id": "d1", "type": "decision",
         "match": [["2 s", "2 秒"], ["电池", "广播"]],
         "note": "广播间隔 2 秒：电池优先，App 连接慢一点可以接受。"},
        {"id": "b2", "type": "bug_note",
         "match": [["fmt_temp", "负号"], ["sensor_value_to_milli", "-0.25", "毫度"]],
         "note": "fmt_temp 在 -1 到 0 °C 之间丢负号（val1 = 0）；改为先用 sensor_value_to_milli 转毫度再打印。"},
        {"id": "c3", "type": "constraint", "types": ["constraint", "project_fact"],
         "match": [["设备名", "CONFIG_BT_DEVICE_NAME"], ["App", "过滤"]],
         "note": "设备名先别改（仍是示例的 \"Zephyr Heartrate Sensor\"）：App 按名字过滤设备。"},
        {"id": "t1", "type": "todo",
         "match": [["PPK2"], ["明天", "量"]],
         "note": "明天上午用 PPK2 量空闲电流。"},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo"],
         "match": [["老周"], ["DFU", "SMP"]],
         "note": "release 里要不要保留 BLE 上的 SMP/DFU，问老周。"},
        {"id": "v1", "type": "verified_command", "command": "west twister -T tests/sensor_fmt -p native_posix"},
        {"id": "v2", "type": "verified_command",
         "command": "west build -b nrf52840dk_nrf52840 -p -- -DEXTRA_CONF_FILE=prj_release.conf -DDTC_OVERLAY_FILE=boards/nrf52840dk_nrf52840_release.overlay"},
    ],
    "secrets": [],
    "forbidden": [["task-notification"], ["User has answered"]],
}
