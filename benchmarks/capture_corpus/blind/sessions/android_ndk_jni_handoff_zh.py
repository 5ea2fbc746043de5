# ruff: noqa: E501  (verbatim command output and file contents)
"""Android NDK (JNI, CMake): a crash from a cached local jclass used on a worker thread; a Task subagent writes the instrumented test; ends in a handoff list for a colleague (Chinese)."""

from make_sessions import Call, Session

JNI_CPP = '''#include <jni.h>
#include <android/log.h>
#include "filters.h"

static jclass g_resultClass;
static jmethodID g_resultCtor;

extern "C" JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM* vm, void*) {
    JNIEnv* env;
    if (vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_6) != JNI_OK) return JNI_ERR;
    g_resultClass = env->FindClass("com/yuanlu/imagefx/FilterResult");
    g_resultCtor = env->GetMethodID(g_resultClass, "<init>", "([BII)V");
    return JNI_VERSION_1_6;
}

extern "C" JNIEXPORT jobject JNICALL
Java_com_yuanlu_imagefx_NativeFilters_applyFilter(JNIEnv* env, jclass, jbyteArray pixels,
                                                  jint width, jint height, jint kind) {
    jbyte* src = env->GetByteArrayElements(pixels, nullptr);
    if (src == nullptr) return nullptr;
    jbyteArray out = env->NewByteArray(width * height * 4);
    if (out == nullptr) return nullptr;
    jbyte* dst = env->GetByteArrayElements(out, nullptr);
    imagefx::apply(kind, reinterpret_cast<uint8_t*>(src), reinterpret_cast<uint8_t*>(dst), width, height);
    env->ReleaseByteArrayElements(out, dst, 0);
    env->ReleaseByteArrayElements(pixels, src, JNI_ABORT);
    return env->NewObject(g_resultClass, g_resultCtor, out, width, height);
}
'''

AGENT_PROMPT = '''在 imagefx 模块里写一个 instrumented test（androidTest），复现下面这个崩溃：
NativeFilters.applyFilter 在后台线程（Executors.newSingleThreadExecutor）上调用，之前先触发 GC（Runtime.getRuntime().gc() 循环几次，分配一些大数组）。
要求：
- 文件放在 imagefx/src/androidTest/java/com/yuanlu/imagefx/NativeFiltersThreadTest.kt
- JUnit4 + AndroidJUnit4，不要引入新依赖（build.gradle.kts 里已有 androidx.test:runner 和 junit）
- 断言：100 次调用都返回非 null，宽高正确
- 不要改 src/main 下的任何代码
完成后运行 ./gradlew :imagefx:connectedDebugAndroidTest（模拟器 emulator-5554 已启动，checkjni 已打开），报告结果。'''

AGENT_REPORT = '''已创建 imagefx/src/androidTest/java/com/yuanlu/imagefx/NativeFiltersThreadTest.kt：
- `applyFilterOnWorkerThreadAfterGc`：先分配 64 个 4 MB 数组并 gc 三次，然后在单线程 executor 上调用 applyFilter 100 次，断言结果非 null、宽高为 320x240。

运行 `./gradlew :imagefx:connectedDebugAndroidTest`：失败（预期中），emulator-5554 上进程 abort：
```
JNI DETECTED ERROR IN APPLICATION: use of invalid jobject 0x71
    from java.lang.Object com.yuanlu.imagefx.NativeFilters.applyFilter(byte[], int, int, int)
```
src/main 未改动。

另外顺带发现：`applyFilter` 里 `NewByteArray` 失败时直接 `return nullptr`，此时 `src` 已经 `GetByteArrayElements` 但没有 `ReleaseByteArrayElements`，大图 OOM 时会泄漏（也可能 pin 住数组）。我没有改，留给你判断。'''

SUMMARY = '''Summary:
1. Primary Request and Intent: 线上 2.31.0 崩溃（Play Console，主要是 Android 8/9 的低端机）：SIGSEGV in libimagefx.so, Java_com_yuanlu_imagefx_NativeFilters_applyFilter. 用户（陈工）要求修复并写测试。规则：NDK 锁在 r25c（CI 镜像），不引入新的第三方 C++ 库，minSdk 24。
2. Key Technical Concepts: JNI 局部引用/全局引用，JNI_OnLoad 缓存 jclass，CheckJNI（adb shell setprop debug.checkjni 1），AndroidJUnit4 instrumented test。
3. Files and Code Sections:
   - imagefx/src/main/cpp/jni_bridge.cpp：JNI_OnLoad 里 g_resultClass = env->FindClass(...)，没有 NewGlobalRef。
   - imagefx/src/androidTest/.../NativeFiltersThreadTest.kt：subagent 写的复现测试，失败：JNI DETECTED ERROR IN APPLICATION: use of invalid jobject。
4. Errors and fixes: 先怀疑 armeabi-v7a 对齐，给缓冲区加了 alignas(16)，没用，已撤回。
5. Pending Tasks: 修 g_resultClass（NewGlobalRef），测试转绿；subagent 报告的 ReleaseByteArrayElements 泄漏未处理。
6. Current Work: 准备改 JNI_OnLoad。'''


def build() -> Session:
    s = Session("android-ndk-jni-handoff-zh", cwd="/Users/chenhao/work/yuanlu-android", branch="fix/imagefx-jni-crash",
                start="2026-03-27T06:41:09.332Z", version="2.1.60", slug="jni-globalref-crane")
    s.user(
        "2.31.0 上线后 Play Console 里多了一个崩溃，基本都是 Android 8/9 的低端机：\n\n"
        "```\n*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***\nsignal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x71\n"
        "backtrace:\n  #00 pc 0000000000347a2c  /system/lib64/libart.so (art::JNI::NewObjectV+380)\n"
        "  #01 pc 0000000000012f40  /data/app/com.yuanlu.app/lib/arm64/libimagefx.so (Java_com_yuanlu_imagefx_NativeFilters_applyFilter+212)\n```\n\n"
        "帮我查一下。注意：NDK 锁在 r25c，CI 镜像只有这个，别升级；也别引入新的 C++ 三方库",
        wait=5,
    )
    s.say("先把 tombstone 符号化，看看落在哪一行。")
    s.bash("pbpaste > /tmp/tombstone.txt && $ANDROID_NDK_HOME/ndk-stack -sym imagefx/build/intermediates/merged_native_libs/release/out/lib/arm64-v8a -dump /tmp/tombstone.txt 2>&1 | head -8", '''********** Crash dump: **********
Build fingerprint: 'samsung/j6ltexx/j6lte:9/PPR1.180610.011/J600FXXU6BTA1:user/release-keys'
#00 0x0000000000347a2c /system/lib64/libart.so (art::JNI::NewObjectV(_JNIEnv*, _jclass*, _jmethodID*, std::__va_list)+380)
#01 0x0000000000012f40 /data/app/com.yuanlu.app/lib/arm64/libimagefx.so (Java_com_yuanlu_imagefx_NativeFilters_applyFilter+212)
                                                                        Java_com_yuanlu_imagefx_NativeFilters_applyFilter
                                                                        /Users/chenhao/work/yuanlu-android/imagefx/src/main/cpp/jni_bridge.cpp:28:12
Crash dump is completed''', desc="ndk-stack 符号化", secs=6)
    s.read("imagefx/src/main/cpp/jni_bridge.cpp", JNI_CPP)
    s.grep("FindClass|GetMethodID|NewGlobalRef", content='''imagefx/src/main/cpp/jni_bridge.cpp:11:    g_resultClass = env->FindClass("com/yuanlu/imagefx/FilterResult");
imagefx/src/main/cpp/jni_bridge.cpp:12:    g_resultCtor = env->GetMethodID(g_resultClass, "<init>", "([BII)V");''', path="imagefx/src/main/cpp")
    s.read("imagefx/src/main/cpp/CMakeLists.txt", '''cmake_minimum_required(VERSION 3.22.1)
project(imagefx CXX)

set(CMAKE_CXX_STANDARD 17)

add_library(imagefx SHARED jni_bridge.cpp filters.cpp filters_neon.cpp)
target_compile_options(imagefx PRIVATE -Wall -Werror -O2)
if(ANDROID_ABI STREQUAL "armeabi-v7a" OR ANDROID_ABI STREQUAL "arm64-v8a")
    set_source_files_properties(filters_neon.cpp PROPERTIES COMPILE_FLAGS -DIMAGEFX_NEON=1)
endif()
target_link_libraries(imagefx android log jnigraphics)
''')
    s.say(
        "崩在 `NewObjectV`，地址 0x71 很小，像是一个无效的引用被当成对象用了。`applyFilter` 里唯一调 `NewObject` 的地方用的是 "
        "`g_resultClass`，它是在 `JNI_OnLoad` 里用 `FindClass` 拿到后直接存进静态变量的。\n\n"
        "不过我先排除一个更常见的低端机问题：armeabi-v7a/部分 arm64 上 NEON 代码对未对齐缓冲区的处理。看看 2.31.0 里 filters 有没有动过："
    )
    s.bash("git log --oneline v2.30.0..v2.31.0 -- imagefx/", '''9f3c1d2 imagefx: NEON 版 sharpen
41be7a0 imagefx: 在后台线程跑滤镜，避免主线程卡顿''', desc="2.31.0 里 imagefx 的改动")
    s.say("有 NEON 的改动。我先试一下给输出缓冲区做 16 字节对齐，看看能不能在模拟器上复现/消除。")
    s.edit("imagefx/src/main/cpp/jni_bridge.cpp", '''    jbyte* dst = env->GetByteArrayElements(out, nullptr);''', '''    alignas(16) jbyte* dst = env->GetByteArrayElements(out, nullptr);''')
    s.bash("adb -s emulator-5554 shell setprop debug.checkjni 1 && ./gradlew :imagefx:connectedDebugAndroidTest 2>&1 | tail -4", '''> Task :imagefx:connectedDebugAndroidTest
Starting 6 tests on emulator-5554 - 9

BUILD SUCCESSFUL in 1m 12s''', desc="打开 CheckJNI，跑现有 instrumented test", secs=80)
    s.say(
        "现有 6 个测试都过了——但它们都在测试线程上同步调用，而 `41be7a0` 把滤镜挪到了后台线程。对齐的改动其实没有意义"
        "（`alignas` 作用在指针变量上，不是缓冲区），先撤回。真正的线索应该是线程 + GC：局部引用只在当前这次 native 调用里有效，"
        "`JNI_OnLoad` 返回后 `g_resultClass` 就是悬空的，只是碰巧大多数时候类没有被移动/回收。\n\n"
        "我让一个子代理去写复现测试（后台线程 + 先触发 GC），我这边同时准备修复。"
    )
    s.edit("imagefx/src/main/cpp/jni_bridge.cpp", '''    alignas(16) jbyte* dst = env->GetByteArrayElements(out, nullptr);''', '''    jbyte* dst = env->GetByteArrayElements(out, nullptr);''')
    s.call(Call("Task", {"description": "NativeFilters 线程复现测试", "prompt": AGENT_PROMPT, "subagent_type": "general-purpose"},
                [{"type": "text", "text": AGENT_REPORT},
                 {"type": "text", "text": "agentId: b72e04d (for resuming to continue this agent's work if needed)"}],
                {"status": "completed", "prompt": AGENT_PROMPT, "agentId": "b72e04d",
                 "content": [{"type": "text", "text": AGENT_REPORT}], "totalDurationMs": 198420,
                 "totalTokens": 31877, "totalToolUseCount": 11,
                 "usage": {"input_tokens": 7, "cache_creation_input_tokens": 4410,
                           "cache_read_input_tokens": 26120, "output_tokens": 1290}}, secs=198))
    s.compact(SUMMARY, pre_tokens=161530)
    s.say("继续：先确认子代理的测试文件在，且只有它是新文件。")
    s.bash("git status --short", '''?? imagefx/src/androidTest/java/com/yuanlu/imagefx/NativeFiltersThreadTest.kt''', desc="工作区状态")
    s.read("imagefx/src/androidTest/java/com/yuanlu/imagefx/NativeFiltersThreadTest.kt", '''package com.yuanlu.imagefx

import androidx.test.ext.junit.runners.AndroidJUnit4
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNotNull
import org.junit.Test
import org.junit.runner.RunWith
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit

@RunWith(AndroidJUnit4::class)
class NativeFiltersThreadTest {
    @Test
    fun applyFilterOnWorkerThreadAfterGc() {
        val garbage = ArrayList<ByteArray>()
        repeat(64) { garbage.add(ByteArray(4 * 1024 * 1024)) }
        garbage.clear()
        repeat(3) { Runtime.getRuntime().gc() }

        val pixels = ByteArray(320 * 240 * 4)
        val pool = Executors.newSingleThreadExecutor()
        val results = (1..100).map { pool.submit<FilterResult> { NativeFilters.applyFilter(pixels, 320, 240, NativeFilters.SHARPEN) } }
        results.forEach {
            val r = it.get(10, TimeUnit.SECONDS)
            assertNotNull(r)
            assertEquals(320, r.width)
            assertEquals(240, r.height)
        }
        pool.shutdown()
    }
}
''')
    s.say("测试写得没问题。修 `JNI_OnLoad`，把缓存的类变成全局引用。")
    s.read("imagefx/src/main/cpp/jni_bridge.cpp", offset=8, limit=8)
    s.edit("imagefx/src/main/cpp/jni_bridge.cpp", '''    g_resultClass = env->FindClass("com/yuanlu/imagefx/FilterResult");
    g_resultCtor = env->GetMethodID(g_resultClass, "<init>", "([BII)V");''', '''    // FindClass 返回的是局部引用，JNI_OnLoad 返回后就失效；跨调用、跨线程缓存必须是全局引用。
    jclass local = env->FindClass("com/yuanlu/imagefx/FilterResult");
    if (local == nullptr) return JNI_ERR;
    g_resultClass = static_cast<jclass>(env->NewGlobalRef(local));
    env->DeleteLocalRef(local);
    g_resultCtor = env->GetMethodID(g_resultClass, "<init>", "([BII)V");  // jmethodID 不是引用，可以直接缓存''')
    s.bash("./gradlew :imagefx:connectedDebugAndroidTest 2>&1 | tail -5", '''> Task :imagefx:connectedDebugAndroidTest
Starting 7 tests on emulator-5554 - 9
Finished 7 tests on emulator-5554 - 9

BUILD SUCCESSFUL in 1m 31s''', desc="instrumented tests（含新测试）", secs=95)
    s.say(
        "7 个都过了，包括子代理写的后台线程测试（修之前在 CheckJNI 下稳定 abort）。\n\n"
        "原因说清楚：`FindClass` 返回的是**局部引用**，只在 `JNI_OnLoad` 这一次调用里有效。以前滤镜在主线程同步调用时，"
        "类对象恰好一直没被移动，悬空的引用碰巧还能用；2.31.0 把滤镜挪到后台线程（41be7a0）以后，低端机内存紧、GC 频繁，"
        "`NewObject` 拿到的就是一个无效的引用（0x71），于是崩在 `art::JNI::NewObjectV`。`jmethodID` 不是引用，缓存没问题。\n\n"
        "子代理还顺带报告了一个问题：`NewByteArray` 失败时直接 `return nullptr`，`src` 没有 `ReleaseByteArrayElements`。"
        "这次没改，只是崩溃修复。要一起修吗？"
    )
    s.turn_end()
    s.user(
        "泄漏那个先别动，这个 PR 只修崩溃，热修要尽快过审。跑一下单测和 lint 我就提了",
        wait=60,
    )
    s.bash("./gradlew :imagefx:testDebugUnitTest :imagefx:lintDebug 2>&1 | tail -4", '''> Task :imagefx:lintDebug
Wrote HTML report to file:///Users/chenhao/work/yuanlu-android/imagefx/build/reports/lint-results-debug.html

BUILD SUCCESSFUL in 48s''', desc="单元测试 + lint", secs=55)
    s.bash("git add -A && git commit -q -m 'imagefx: 缓存 FilterResult 类用全局引用（修复 2.31.0 后台线程崩溃）' && git log --oneline -1", "c0a7e55 imagefx: 缓存 FilterResult 类用全局引用（修复 2.31.0 后台线程崩溃）", desc="提交")
    s.turn_end()
    s.user(
        "好。我明天开始休假两周，这块交给小林。给他写个交接清单，他看了就能接上",
        wait=40,
    )
    s.say(
        "**交接：imagefx JNI 崩溃（分支 `fix/imagefx-jni-crash`，提交 c0a7e55）**\n\n"
        "已完成：\n"
        "- 原因：`JNI_OnLoad` 里缓存的 `FilterResult` 类是 `FindClass` 的局部引用；2.31.0 把滤镜挪到后台线程后，在低端机上 GC "
        "之后引用失效，`NewObject` 崩溃。已改为 `NewGlobalRef`。\n"
        "- 复现测试 `NativeFiltersThreadTest`（后台线程 + GC），修之前在 CheckJNI 下失败，现在通过。\n"
        "- `./gradlew :imagefx:connectedDebugAndroidTest`、`testDebugUnitTest`、`lintDebug` 全绿。\n\n"
        "待办（小林）：\n"
        "1. 提 PR、走热修 2.31.1；上线后两三天看 Play Console 里这个崩溃签名是否归零。\n"
        "2. `applyFilter` 的泄漏：`NewByteArray` 失败时 `src` 没有 `ReleaseByteArrayElements`。故意没放进热修，单独一个 PR。\n"
        "3. 本地复现记得先 `adb shell setprop debug.checkjni 1`，不然模拟器上很难触发。\n\n"
        "排除过的方向：NEON/对齐（加过 `alignas(16)`，没用，已撤回）。\n\n"
        "约束：NDK 锁 r25c（CI 镜像），不加三方 C++ 库。\n\n"
        "未解决的问题：Google Play 对 16 KB page size 的要求——r25c 默认不支持，不确定我们什么时候必须升 NDK，需要和 CI 那边商量。"
    )
    s.turn_end()
    s.user("16KB 那个你写得对，我走之前会在群里问一下老周 CI 镜像什么时候能换。清单我贴到 issue 里了，谢谢", wait=70)
    s.say("好的，休假愉快。")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Android NDK r25c (JNI, CMake) crash from a pasted tombstone, Chinese",
        "rules in the first prompt (NDK pinned to r25c for the CI image, no third-party C++ libs)",
        "an alignment hypothesis tried and reverted, told in text; existing tests passing behind `| tail` without reproducing",
        "a Task subagent writing the reproduction test (only its prompt and report visible) and reporting a leak in passing",
        "compaction between the subagent's report and the fix",
        "cause (local reference cached in JNI_OnLoad, background thread since 2.31.0) explained after the fix",
        "the leak deliberately left out of the hotfix with the user's reason",
        "ends in a handoff list for a colleague (todos, an open question about the 16 KB page size)",
    ],
    "language": "zh",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["r25c"], ["CI", "升级"]],
         "note": "NDK 锁在 r25c（CI 镜像只有这个），不要升级；也不引入新的 C++ 三方库。"},
        {"id": "b1", "type": "bug_note",
         "match": [["局部引用", "NewGlobalRef"], ["JNI_OnLoad", "FindClass"], ["后台线程", "GC"]],
         "note": "2.31.0 崩溃：JNI_OnLoad 里 FindClass 得到的局部引用被缓存；滤镜挪到后台线程后 GC 使其失效，NewObject 崩溃；改为 NewGlobalRef。"},
        {"id": "f1", "type": "failed_attempt",
         "match": [["alignas", "对齐"], ["没用", "撤回"]],
         "note": "先怀疑 NEON/对齐问题，加了 alignas(16)，没用，已撤回。"},
        {"id": "x1", "type": "project_fact", "types": ["project_fact", "verified_command", "todo"],
         "match": [["checkjni"], ["复现", "模拟器"]],
         "note": "本地复现要先 adb shell setprop debug.checkjni 1，否则模拟器上很难触发。"},
        {"id": "b2", "type": "bug_note", "types": ["bug_note", "todo"],
         "match": [["ReleaseByteArrayElements"], ["NewByteArray", "泄漏"]],
         "note": "applyFilter 里 NewByteArray 失败时 src 没有 ReleaseByteArrayElements，会泄漏；单独一个 PR 修。"},
        {"id": "d1", "type": "decision", "types": ["decision", "preference", "constraint"],
         "match": [["泄漏"], ["热修", "只修崩溃"]],
         "note": "泄漏不放进这次热修：这个 PR 只修崩溃，要尽快过审。"},
        {"id": "t1", "type": "todo",
         "match": [["2.31.1", "Play Console"], ["归零", "崩溃签名", "热修"]],
         "note": "小林：提 PR，走热修 2.31.1，上线后看 Play Console 里这个崩溃是否归零。"},
        {"id": "q1", "type": "open_question",
         "match": [["16 KB", "16KB"], ["NDK", "CI 镜像", "老周"]],
         "note": "Google Play 的 16 KB page size 要求：r25c 不支持，什么时候必须升 NDK？陈工在群里问老周 CI 镜像什么时候能换。"},
        {"id": "v1", "type": "verified_command", "command": "./gradlew :imagefx:connectedDebugAndroidTest"},
        {"id": "v2", "type": "verified_command", "command": "./gradlew :imagefx:testDebugUnitTest :imagefx:lintDebug"},
        {"id": "v3", "type": "verified_command", "command": "adb -s emulator-5554 shell setprop debug.checkjni 1 && ./gradlew :imagefx:connectedDebugAndroidTest", "required": False},
    ],
    "secrets": [],
    "forbidden": [["This session is being continued"], ["agentId"]],
}
