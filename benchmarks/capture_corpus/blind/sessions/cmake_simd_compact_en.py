# ruff: noqa: E501  (verbatim command output and file contents)
"""C++/CMake: AVX2 bilinear resize with runtime dispatch; ASan failure; compacted midway (English)."""

from make_sessions import Session

CMAKE = '''cmake_minimum_required(VERSION 3.16)
project(thumbr VERSION 2.3.0 LANGUAGES CXX)

set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)

option(THUMBR_BUILD_TESTS "Build tests" ON)
option(THUMBR_BUILD_BENCH "Build benchmarks" ON)
set(THUMBR_SANITIZE "" CACHE STRING "Sanitizer to enable (address, undefined)")

add_library(thumbr
    src/decode.cpp
    src/resize.cpp
    src/encode.cpp
)
target_include_directories(thumbr PUBLIC include)
target_compile_options(thumbr PRIVATE -Wall -Wextra -Wpedantic)

if(THUMBR_SANITIZE)
    add_compile_options(-fsanitize=${THUMBR_SANITIZE} -fno-omit-frame-pointer)
    add_link_options(-fsanitize=${THUMBR_SANITIZE})
endif()

if(THUMBR_BUILD_TESTS)
    enable_testing()
    add_subdirectory(tests)
endif()
if(THUMBR_BUILD_BENCH)
    add_subdirectory(bench)
endif()
'''

RESIZE = '''#include "thumbr/thumbr.h"
#include "resize_kernels.h"

#include <algorithm>
#include <cmath>

namespace thumbr {

void resize_bilinear_row(const float* top, const float* bottom, float wy,
                         const int32_t* x0, const float* wx, float* out, int width) {
    for (int x = 0; x < width; ++x) {
        const float a = top[x0[x]] + (top[x0[x] + 1] - top[x0[x]]) * wx[x];
        const float b = bottom[x0[x]] + (bottom[x0[x] + 1] - bottom[x0[x]]) * wx[x];
        out[x] = a + (b - a) * wy;
    }
}

Image resize_bilinear(const Image& src, int out_w, int out_h) {
    Image dst(out_w, out_h, src.channels());
    const RowPlan plan = make_row_plan(src.width(), out_w, src.channels());
    for (int y = 0; y < out_h; ++y) {
        const float sy = std::max(0.0f, (y + 0.5f) * src.height() / out_h - 0.5f);
        const int y0 = std::min(static_cast<int>(sy), src.height() - 2);
        resize_bilinear_row(src.row(y0), src.row(y0 + 1), sy - y0, plan.x0.data(),
                            plan.wx.data(), dst.row(y), out_w * src.channels());
    }
    return dst;
}

}  // namespace thumbr
'''

HEADER = '''#pragma once
// Public API. Included by customer code: keep it free of platform headers.
#include <cstdint>
#include <memory>
#include <vector>

namespace thumbr {

class Image {
public:
    Image(int width, int height, int channels);
    int width() const noexcept { return width_; }
    int height() const noexcept { return height_; }
    int channels() const noexcept { return channels_; }
    float* row(int y) noexcept { return data_.data() + static_cast<size_t>(y) * width_ * channels_; }
    const float* row(int y) const noexcept { return data_.data() + static_cast<size_t>(y) * width_ * channels_; }

private:
    int width_, height_, channels_;
    std::vector<float> data_;
};

Image resize_bilinear(const Image& src, int out_w, int out_h);

}  // namespace thumbr
'''

KERNELS_H = '''#pragma once
// Internal: row kernels and their plan. Not installed.
#include <cstdint>
#include <vector>

namespace thumbr {

struct RowPlan {
    std::vector<int32_t> x0;  // left source sample per output value
    std::vector<float> wx;    // weight of the right sample
};

RowPlan make_row_plan(int src_w, int out_w, int channels);

void resize_bilinear_row(const float* top, const float* bottom, float wy,
                         const int32_t* x0, const float* wx, float* out, int width);

}  // namespace thumbr
'''

AVX2 = '''// Compiled with -mavx2 -mfma (see CMakeLists.txt). Only called after a runtime check.
#include "resize_kernels.h"

#include <immintrin.h>

namespace thumbr {

void resize_bilinear_row_avx2(const float* top, const float* bottom, float wy,
                              const int32_t* x0, const float* wx, float* out, int width) {
    const __m256 vwy = _mm256_set1_ps(wy);
    for (int x = 0; x < width; x += 8) {
        const __m256i idx = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x0 + x));
        const __m256i idx1 = _mm256_add_epi32(idx, _mm256_set1_epi32(1));
        const __m256 w = _mm256_loadu_ps(wx + x);
        const __m256 t0 = _mm256_i32gather_ps(top, idx, 4);
        const __m256 t1 = _mm256_i32gather_ps(top, idx1, 4);
        const __m256 b0 = _mm256_i32gather_ps(bottom, idx, 4);
        const __m256 b1 = _mm256_i32gather_ps(bottom, idx1, 4);
        const __m256 a = _mm256_fmadd_ps(_mm256_sub_ps(t1, t0), w, t0);
        const __m256 b = _mm256_fmadd_ps(_mm256_sub_ps(b1, b0), w, b0);
        _mm256_storeu_ps(out + x, _mm256_fmadd_ps(_mm256_sub_ps(b, a), vwy, a));
    }
}

}  // namespace thumbr
'''

TEST = '''#include "thumbr/thumbr.h"
#include "../src/resize_kernels.h"

#include <gtest/gtest.h>
#include <random>

using namespace thumbr;

TEST(Resize, KeepsConstantImageConstant) {
    Image src(64, 48, 3);
    std::fill(src.row(0), src.row(0) + 64 * 48 * 3, 0.25f);
    Image dst = resize_bilinear(src, 17, 9);
    for (int y = 0; y < 9; ++y)
        for (int x = 0; x < 17 * 3; ++x) EXPECT_FLOAT_EQ(dst.row(y)[x], 0.25f);
}
'''

SUMMARY = '''Analysis:
The user wants the bilinear downscale in thumbr (C++17 image library, CMake) vectorized; `resize_bilinear_row` is 71% of their profile. I first tried `-O3 -march=native`, which the user rejected for shipping reasons, then wrote an AVX2 kernel in its own translation unit with runtime dispatch. The release build passed; the ASan build exposed an out-of-bounds read in the AVX2 loop, which I fixed just before the context ran out.

Summary:
1. Primary Request and Intent:
   Vectorize `thumbr::resize_bilinear_row` (src/resize.cpp). Constraints from the user: the RHEL 8 build farm uses GCC 9, so C++17 is the ceiling (nothing from C++20); `include/thumbr/thumbr.h` is included by customer code and must stay free of intrinsics/platform headers (`immintrin.h`).

2. Key Technical Concepts:
   - AVX2 gathers (`_mm256_i32gather_ps`) + FMA for the two horizontal lerps and the vertical lerp
   - Per-file compile flags: `set_source_files_properties(src/resize_avx2.cpp PROPERTIES COMPILE_OPTIONS "-mavx2;-mfma")`
   - Runtime dispatch with `__builtin_cpu_supports("avx2")` / `("fma")`, resolved once into a function pointer (src/dispatch.cpp)
   - GoogleTest parity test: AVX2 kernel vs scalar reference for widths 1..67

3. Files and Code Sections:
   - `src/resize_avx2.cpp`: `resize_bilinear_row_avx2`, 8 outputs per iteration.
   - `src/dispatch.cpp`: `row_kernel()` returns the AVX2 or scalar kernel; `resize_bilinear` calls through it.
   - `src/resize_kernels.h`: internal header with `RowPlan` and both kernel declarations.
   - `CMakeLists.txt`: added the two sources and the per-file flags (only when `CMAKE_SYSTEM_PROCESSOR` is x86_64/AMD64).
   - `tests/test_resize.cpp`: added `Resize.Avx2MatchesScalar` (skips when the CPU lacks AVX2).

4. Errors and fixes:
   - `-march=native` (first attempt, +2.8x): user rejected it — the build farm is Ice Lake but customers still run Sandy Bridge-era Xeons without AVX2, and a binary built with `-march=native` dies with SIGILL there. Reverted.
   - ASan build: `ERROR: AddressSanitizer: heap-buffer-overflow ... READ of size 32` in `resize_bilinear_row_avx2` (resize_avx2.cpp:12) for widths not a multiple of 8 — the loop `x < width; x += 8` loaded/stored a full vector past the row end. The release ctest run had passed because the overrun stayed inside the allocation. Fixed: vector loop runs while `x + 8 <= width`, scalar loop for the remaining 0-7 values.

5. Problem Solving:
   The kernel itself works; the fix for the tail has been written but not yet re-run under ASan.

6. All user messages:
   - "resize_bilinear_row is 71% of our thumbnailing profile (perf report attached below). can you vectorize it? constraints: the RHEL 8 build farm is on GCC 9, so C++17 is the ceiling. and thumbr.h is included by customers, so no intrinsics or platform headers in it"
   - "nice number but -march=native can't ship. the farm is ice lake, customers run whatever — we still have people on sandy bridge era xeons. that binary would SIGILL on their boxes. it has to be one binary for everybody"

7. Pending Tasks:
   - Re-run the ASan build and the release build + ctest.
   - Benchmark against the scalar baseline.

8. Current Work:
   Just edited the AVX2 loop bounds and added the scalar remainder loop in src/resize_avx2.cpp.

9. Optional Next Step:
   Run `cmake --build build-asan -j && ctest --test-dir build-asan --output-on-failure`.'''


def build() -> Session:
    s = Session("cmake-simd-compact-en", cwd="/home/ana/work/thumbr", branch="perf/avx2-resize",
                start="2026-03-18T13:02:44.512Z", version="2.1.53", slug="brisk-tiling-otter")
    s.user(
        "resize_bilinear_row is 71% of our thumbnailing profile (perf report attached below). "
        "can you vectorize it? constraints: the RHEL 8 build farm is on GCC 9, so C++17 is the "
        "ceiling. and thumbr.h is included by customers, so no intrinsics or platform headers "
        "in it\n\n```\n  71.24%  thumbd  libthumbr.so.2  [.] thumbr::resize_bilinear_row\n"
        "   9.80%  thumbd  libjpeg.so.62   [.] decode_mcu_DC_first\n"
        "   6.02%  thumbd  libthumbr.so.2  [.] thumbr::encode_jpeg\n```",
        wait=6,
    )
    s.todo([
        ("Read the resize code and build setup", "in_progress", "Reading the resize code"),
        ("Baseline benchmark", "pending", "Running the baseline benchmark"),
        ("Vectorize resize_bilinear_row", "pending", "Vectorizing resize_bilinear_row"),
        ("Tests + sanitizer build", "pending", "Running tests and the sanitizer build"),
    ])
    s.call(s.read_call("CMakeLists.txt", CMAKE), s.read_call("src/resize.cpp", RESIZE),
           s.read_call("include/thumbr/thumbr.h", HEADER))
    s.read("src/resize_kernels.h", KERNELS_H)
    s.bash("cmake -B build -DCMAKE_BUILD_TYPE=Release -G Ninja && cmake --build build -j && ./build/bench/resize_bench --benchmark_filter=Bilinear", """\
-- The CXX compiler identification is GNU 9.2.1
-- Detecting CXX compiler ABI info - done
-- Found GTest: /usr/lib64/cmake/GTest/GTestConfig.cmake (found version "1.10.0")
-- Found benchmark: /usr/lib64/cmake/benchmark (found version "1.6.1")
-- Configuring done (0.4s)
-- Generating done (0.0s)
-- Build files have been written to: /home/ana/work/thumbr/build
[42/42] Linking CXX executable bench/resize_bench
2026-03-18T13:04:12+00:00
Running ./build/bench/resize_bench
Run on (16 X 4700 MHz CPU s)
CPU Caches:
  L1 Data 48 KiB (x8)
  L2 Unified 1280 KiB (x8)
  L3 Unified 24576 KiB (x1)
------------------------------------------------------------------------
Benchmark                              Time             CPU   Iterations
------------------------------------------------------------------------
BM_Bilinear/4000x3000->400x300      2.91 ms         2.91 ms          240
BM_Bilinear/1920x1080->320x180      0.83 ms         0.83 ms          842""", desc="Release build and baseline benchmark", secs=38.0)
    s.todo([
        ("Read the resize code and build setup", "completed", "Reading the resize code"),
        ("Baseline benchmark", "completed", "Running the baseline benchmark"),
        ("Vectorize resize_bilinear_row", "in_progress", "Vectorizing resize_bilinear_row"),
        ("Tests + sanitizer build", "pending", "Running tests and the sanitizer build"),
    ])
    s.say(
        "Baseline: 2.91 ms for a 12 MP → 400×300 thumbnail. The loop is a textbook "
        "candidate, but GCC won't vectorize it at the default `-O2` for x86-64 baseline "
        "(SSE2, no gathers). Quickest thing to measure first: let the compiler target the "
        "build machine."
    )
    s.edit("CMakeLists.txt", "target_compile_options(thumbr PRIVATE -Wall -Wextra -Wpedantic)",
           "target_compile_options(thumbr PRIVATE -Wall -Wextra -Wpedantic -O3 -march=native)")
    s.bash("cmake --build build -j && ./build/bench/resize_bench --benchmark_filter=Bilinear 2>&1 | tail -3", """\
[6/6] Linking CXX executable bench/resize_bench
BM_Bilinear/4000x3000->400x300      1.04 ms         1.04 ms          672
BM_Bilinear/1920x1080->320x180      0.31 ms         0.31 ms         2254""", desc="Benchmark with -march=native", secs=30.0)
    s.say("With `-O3 -march=native` GCC vectorizes the loop with AVX2 gathers: 2.91 → 1.04 ms, "
          "about 2.8×. That's a lower bound for what hand-written code should reach.")
    s.turn_end()
    s.user(
        "nice number but -march=native can't ship. the farm is ice lake, customers run whatever "
        "— we still have people on sandy bridge era xeons. that binary would SIGILL on their "
        "boxes. it has to be one binary for everybody",
        wait=70,
    )
    s.say(
        "Right, `-march=native` bakes the build host's instruction set into every function of "
        "the library. Reverting it.\n\n"
        "What I'll do instead:\n"
        "- the AVX2+FMA kernel lives in its own file, `src/resize_avx2.cpp`, and only that file "
        "gets `-mavx2 -mfma`; everything else stays baseline x86-64;\n"
        "- at first use, `__builtin_cpu_supports(\"avx2\")` and `(\"fma\")` pick the kernel "
        "once and store a function pointer; Sandy Bridge gets the scalar loop;\n"
        "- the public header doesn't change, `immintrin.h` is only included by the AVX2 file.\n\n"
        "So one binary for all customers, and GCC 9 handles all of it in C++17."
    )
    s.edit("CMakeLists.txt", "target_compile_options(thumbr PRIVATE -Wall -Wextra -Wpedantic -O3 -march=native)",
           "target_compile_options(thumbr PRIVATE -Wall -Wextra -Wpedantic)")
    s.write("src/resize_avx2.cpp", AVX2)
    s.write("src/dispatch.cpp", '''#include "resize_kernels.h"

namespace thumbr {

#if defined(__x86_64__)
void resize_bilinear_row_avx2(const float*, const float*, float, const int32_t*, const float*,
                              float*, int);
#endif

RowKernel row_kernel() noexcept {
    static const RowKernel kernel = [] {
#if defined(__x86_64__)
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
            return &resize_bilinear_row_avx2;
#endif
        return &resize_bilinear_row;
    }();
    return kernel;
}

}  // namespace thumbr
''')
    s.edit("src/resize_kernels.h", '''void resize_bilinear_row(const float* top, const float* bottom, float wy,
                         const int32_t* x0, const float* wx, float* out, int width);''', '''void resize_bilinear_row(const float* top, const float* bottom, float wy,
                         const int32_t* x0, const float* wx, float* out, int width);

using RowKernel = void (*)(const float*, const float*, float, const int32_t*, const float*,
                           float*, int);

// The fastest row kernel this CPU supports, chosen once at first call.
RowKernel row_kernel() noexcept;''')
    s.edit("src/resize.cpp", '''    const RowPlan plan = make_row_plan(src.width(), out_w, src.channels());
    for (int y = 0; y < out_h; ++y) {''', '''    const RowPlan plan = make_row_plan(src.width(), out_w, src.channels());
    const RowKernel row = row_kernel();
    for (int y = 0; y < out_h; ++y) {''')
    s.edit("src/resize.cpp", '''        resize_bilinear_row(src.row(y0), src.row(y0 + 1), sy - y0, plan.x0.data(),
                            plan.wx.data(), dst.row(y), out_w * src.channels());''', '''        row(src.row(y0), src.row(y0 + 1), sy - y0, plan.x0.data(), plan.wx.data(), dst.row(y),
            out_w * src.channels());''')
    s.edit("CMakeLists.txt", '''add_library(thumbr
    src/decode.cpp
    src/resize.cpp
    src/encode.cpp
)''', '''add_library(thumbr
    src/decode.cpp
    src/resize.cpp
    src/dispatch.cpp
    src/encode.cpp
)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64)$")
    # Only this file may use AVX2/FMA; dispatch.cpp checks the CPU before calling it.
    target_sources(thumbr PRIVATE src/resize_avx2.cpp)
    set_source_files_properties(src/resize_avx2.cpp PROPERTIES COMPILE_OPTIONS "-mavx2;-mfma")
endif()''')
    s.read("tests/test_resize.cpp", TEST)
    s.edit("tests/test_resize.cpp", '''        for (int x = 0; x < 17 * 3; ++x) EXPECT_FLOAT_EQ(dst.row(y)[x], 0.25f);
}''', '''        for (int x = 0; x < 17 * 3; ++x) EXPECT_FLOAT_EQ(dst.row(y)[x], 0.25f);
}

#if defined(__x86_64__)
namespace thumbr {
void resize_bilinear_row_avx2(const float*, const float*, float, const int32_t*, const float*,
                              float*, int);
}

// The scalar loop is the reference: the AVX2 kernel must agree with it for every width,
// including the ones that are not a multiple of 8.
TEST(Resize, Avx2MatchesScalar) {
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) GTEST_SKIP();
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> value(0.f, 1.f);
    for (int width = 1; width <= 67; ++width) {
        const RowPlan plan = make_row_plan(width * 3 + 5, width, 1);
        std::vector<float> top(width * 3 + 6), bottom(width * 3 + 6);
        for (auto& v : top) v = value(rng);
        for (auto& v : bottom) v = value(rng);
        std::vector<float> want(width), got(width);
        resize_bilinear_row(top.data(), bottom.data(), 0.3f, plan.x0.data(), plan.wx.data(), want.data(), width);
        resize_bilinear_row_avx2(top.data(), bottom.data(), 0.3f, plan.x0.data(), plan.wx.data(), got.data(), width);
        for (int x = 0; x < width; ++x) ASSERT_NEAR(got[x], want[x], 1e-6f) << "width " << width << " x " << x;
    }
}
#endif''')
    s.bash("cmake --build build -j && ctest --test-dir build --output-on-failure 2>&1 | tail -15", """\
[9/9] Linking CXX executable tests/thumbr_tests
Internal ctest changing into directory: /home/ana/work/thumbr/build
Test project /home/ana/work/thumbr/build
    Start 1: thumbr_tests
1/1 Test #1: thumbr_tests .....................   Passed    0.42 sec

100% tests passed, 0 tests failed out of 1

Total Test time (real) =   0.43 sec""", desc="Build and run tests", secs=45.0)
    s.todo([
        ("Read the resize code and build setup", "completed", "Reading the resize code"),
        ("Baseline benchmark", "completed", "Running the baseline benchmark"),
        ("Vectorize resize_bilinear_row", "completed", "Vectorizing resize_bilinear_row"),
        ("Tests + sanitizer build", "in_progress", "Running tests and the sanitizer build"),
    ])
    s.say("Release tests pass. Since this is raw pointer arithmetic with gathers, I want the "
          "ASan build to agree before calling it done.")
    s.bash("cmake -B build-asan -DCMAKE_BUILD_TYPE=Debug -DTHUMBR_SANITIZE=address -G Ninja && cmake --build build-asan -j && ctest --test-dir build-asan --output-on-failure 2>&1 | tail -30", """\
[Resize.Avx2MatchesScalar]
=================================================================
==48213==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6030000000fc at pc 0x7f3a1c2e41b7 bp 0x7ffd2f6a8e10 sp 0x7ffd2f6a8e08
READ of size 32 at 0x6030000000fc thread T0
    #0 0x7f3a1c2e41b6 in thumbr::resize_bilinear_row_avx2(float const*, float const*, float, int const*, float const*, float*, int) /home/ana/work/thumbr/src/resize_avx2.cpp:12
    #1 0x55d0b61f3a2c in Resize_Avx2MatchesScalar_Test::TestBody() /home/ana/work/thumbr/tests/test_resize.cpp:38
    #2 0x55d0b6262f6e in void testing::internal::HandleExceptionsInMethodIfSupported<testing::Test, void>(testing::Test*, void (testing::Test::*)(), char const*) (/home/ana/work/thumbr/build-asan/tests/thumbr_tests+0x10af6e)

0x6030000000fc is located 0 bytes after 28-byte region [0x6030000000e0,0x6030000000fc)
allocated by thread T0 here:
    #0 0x7f3a1c6b7f17 in operator new(unsigned long) ../../../../src/libsanitizer/asan/asan_new_delete.cpp:95
    #1 0x55d0b61f4f02 in std::vector<int, std::allocator<int> >::vector(unsigned long, std::allocator<int> const&) /usr/include/c++/9/bits/stl_vector.h:511

SUMMARY: AddressSanitizer: heap-buffer-overflow /home/ana/work/thumbr/src/resize_avx2.cpp:12 in thumbr::resize_bilinear_row_avx2(float const*, float const*, float, int const*, float const*, float*, int)
==48213==ABORTING
1/1 Test #1: thumbr_tests .....................***Failed    1.87 sec

0% tests passed, 1 tests failed out of 1

Total Test time (real) =   1.88 sec

The following tests FAILED:
\t  1 - thumbr_tests (Failed)
Errors while running CTest""", desc="ASan build and tests", secs=96.0)
    s.say(
        "The exit code was 0 only because of the `| tail` — ctest failed. ASan caught a real "
        "bug the release run couldn't see: the loop is `x < width; x += 8`, so for a width of "
        "7 (28 bytes of `x0`) the first iteration loads 32 bytes of indices and stores 8 "
        "outputs — reading and writing past the row. In release the overrun landed inside the "
        "same heap block, so the numbers happened to be right. Whole vectors only while 8 "
        "values remain, then the scalar formula for the last 0–7."
    )
    s.edit("src/resize_avx2.cpp", '''    const __m256 vwy = _mm256_set1_ps(wy);
    for (int x = 0; x < width; x += 8) {''', '''    const __m256 vwy = _mm256_set1_ps(wy);
    int x = 0;
    for (; x + 8 <= width; x += 8) {''')
    s.edit("src/resize_avx2.cpp", '''        _mm256_storeu_ps(out + x, _mm256_fmadd_ps(_mm256_sub_ps(b, a), vwy, a));
    }
}''', '''        _mm256_storeu_ps(out + x, _mm256_fmadd_ps(_mm256_sub_ps(b, a), vwy, a));
    }
    // Remainder (width not a multiple of 8): same arithmetic, one value at a time.
    for (; x < width; ++x) {
        const float a = top[x0[x]] + (top[x0[x] + 1] - top[x0[x]]) * wx[x];
        const float b = bottom[x0[x]] + (bottom[x0[x] + 1] - bottom[x0[x]]) * wx[x];
        out[x] = a + (b - a) * wy;
    }
}''')
    s.compact(SUMMARY, pre_tokens=161877)
    s.blank()
    s.think("Resume: re-run the ASan build, then release build and tests, then benchmark.")
    s.bash("cmake --build build-asan -j && ctest --test-dir build-asan --output-on-failure 2>&1 | tail -8", """\
[3/3] Linking CXX executable tests/thumbr_tests
Test project /home/ana/work/thumbr/build-asan
    Start 1: thumbr_tests
1/1 Test #1: thumbr_tests .....................   Passed    2.11 sec

100% tests passed, 0 tests failed out of 1

Total Test time (real) =   2.12 sec""", desc="ASan build and tests", secs=70.0)
    s.bash("cmake -B build-asan -DCMAKE_BUILD_TYPE=Debug -DTHUMBR_SANITIZE=address -G Ninja && cmake --build build-asan -j && ctest --test-dir build-asan --output-on-failure 2>&1 | tail -4", """\
-- Configuring done (0.3s)
-- Generating done (0.0s)
-- Build files have been written to: /home/ana/work/thumbr/build-asan
ninja: no work to do.
100% tests passed, 0 tests failed out of 1

Total Test time (real) =   2.09 sec""", desc="Full ASan recipe from scratch config", secs=12.0)
    s.bash("cmake --build build -j && ctest --test-dir build --output-on-failure 2>&1 | tail -5", """\
[4/4] Linking CXX executable tests/thumbr_tests
1/1 Test #1: thumbr_tests .....................   Passed    0.40 sec

100% tests passed, 0 tests failed out of 1

Total Test time (real) =   0.41 sec""", desc="Release build and tests", secs=40.0)
    s.bash("./build/bench/resize_bench --benchmark_filter=Bilinear 2>&1 | tail -3", """\
------------------------------------------------------------------------
BM_Bilinear/4000x3000->400x300      0.94 ms         0.94 ms          744
BM_Bilinear/1920x1080->320x180      0.27 ms         0.27 ms         2589""", desc="Benchmark", secs=8.0)
    s.bash("for f in resize resize_avx2; do printf '%s ' $f; objdump -d build/src/CMakeFiles/thumbr.dir/$f.cpp.o | grep -c ymm; done", "resize 0\nresize_avx2 212", desc="AVX2 only in the kernel TU")
    s.todo([
        ("Read the resize code and build setup", "completed", "Reading the resize code"),
        ("Baseline benchmark", "completed", "Running the baseline benchmark"),
        ("Vectorize resize_bilinear_row", "completed", "Vectorizing resize_bilinear_row"),
        ("Tests + sanitizer build", "completed", "Running tests and the sanitizer build"),
    ])
    s.say(
        "Done.\n\n"
        "| | 12 MP → 400×300 | 1080p → 320×180 |\n|---|---|---|\n"
        "| scalar (before) | 2.91 ms | 0.83 ms |\n| AVX2 + dispatch | 0.94 ms | 0.27 ms |\n\n"
        "About 3.1×, slightly better than `-march=native` managed, and without baking AVX2 into "
        "the rest of the library: `objdump` shows `ymm` registers only in `resize_avx2.cpp`'s "
        "code, none in `resize.cpp`.\n\n"
        "- `src/resize_avx2.cpp` (AVX2+FMA, full vectors + scalar tail), `src/dispatch.cpp` "
        "(`__builtin_cpu_supports`, chosen once), per-file flags in `CMakeLists.txt` for "
        "x86_64 only.\n"
        "- `Resize.Avx2MatchesScalar` compares against the scalar reference for widths 1–67.\n"
        "- Release and ASan builds green; `thumbr.h` unchanged.\n\n"
        "On aarch64 (your Graviton build) nothing changes: the AVX2 file isn't compiled and "
        "`row_kernel()` returns the scalar loop."
    )
    s.turn_end()
    s.user("great. graviton will want the same at some point. and what happens on the windows "
           "build?", wait=110)
    s.bash("grep -rn 'MSVC\\|WIN32' CMakeLists.txt cmake/ .github/workflows/ 2>/dev/null | head", """\
cmake/toolchains/msvc-x64.cmake:1:# Windows DLL for the .NET wrapper (thumbr-net), built on the windows-2022 runner
.github/workflows/release.yml:48:      - name: Build (MSVC)""", desc="Is there an MSVC build?")
    s.say(
        "Windows would break. `__builtin_cpu_supports` is a GCC/Clang builtin, and MSVC also "
        "ignores `-mavx2;-mfma` (it wants `/arch:AVX2`). There *is* an MSVC job in "
        "`release.yml` for the thumbr-net DLL, so as it stands that job would fail to compile "
        "`dispatch.cpp`.\n\n"
        "Two options: give `dispatch.cpp` an `_MSC_VER` branch using `__cpuid`/`_xgetbv` and "
        "set `/arch:AVX2` on the kernel file, or compile the AVX2 file only for GCC/Clang and "
        "leave Windows on the scalar path. Which one depends on whether the .NET wrapper's "
        "users care about thumbnail speed — I don't know who they are, so I haven't picked.\n\n"
        "For Graviton: the same structure works with a NEON kernel (`resize_neon.cpp`, no "
        "runtime check needed since NEON is mandatory on aarch64). Not started."
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "C++17/CMake with GoogleTest and Google Benchmark",
        "two rules in the first prompt (GCC 9 / C++17; no intrinsics in the public header)",
        "-march=native measured, then rejected by the user (SIGILL on older customer CPUs)",
        "ASan failure hidden behind `| tail` (exit 0), fixed, then passing",
        "compaction (compact_boundary + isCompactSummary) between the fix and its verification",
        "TodoWrite progress",
        "todo (NEON for Graviton) and an open question (MSVC build) at the end",
    ],
    "language": "en",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference", "project_fact"],
         "match": [["C++17"], ["GCC 9", "RHEL 8"]],
         "note": "The RHEL 8 build farm uses GCC 9, so C++17 is the ceiling."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["thumbr.h", "public header"], ["intrinsics", "immintrin", "platform header"]],
         "note": "thumbr.h is included by customer code: no intrinsics or platform headers in it."},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "constraint", "decision"],
         "match": [["march=native"], ["SIGILL", "sandy bridge", "one binary"]],
         "note": "-march=native gave 2.8x but can't ship: built on Ice Lake, it would SIGILL on "
                 "customers' Sandy Bridge-era Xeons; one binary must serve everybody."},
        {"id": "d1", "type": "decision",
         "match": [["__builtin_cpu_supports", "dispatch", "resize_avx2"],
                   ["one binary", "sandy bridge", "own file", "only that file"]],
         "note": "AVX2+FMA kernel in its own file with per-file flags, picked at runtime with "
                 "__builtin_cpu_supports, so one binary runs everywhere."},
        {"id": "b1", "type": "bug_note",
         "match": [["heap-buffer-overflow", "past the row", "overrun"], ["multiple of 8", "tail", "remainder", "x + 8"]],
         "note": "The AVX2 loop read/wrote a full vector past the row when width wasn't a "
                 "multiple of 8 (ASan heap-buffer-overflow); vector loop while x + 8 <= width, "
                 "scalar remainder."},
        {"id": "x1", "type": "project_fact", "required": False,
         "match": [["3.1", "0.94 ms"], ["2.91", "scalar", "AVX2"]],
         "note": "AVX2 kernel: 2.91 -> 0.94 ms for 12 MP -> 400x300 (about 3.1x)."},
        {"id": "t1", "type": "todo",
         "match": [["NEON"], ["Graviton", "aarch64", "resize_neon"]],
         "note": "Graviton/aarch64 still uses the scalar loop; a NEON kernel is not started."},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo", "bug_note"],
         "match": [["MSVC", "Windows"], ["__cpuid", "/arch:AVX2", "thumbr-net", ".NET"]],
         "note": "The MSVC release job would fail on dispatch.cpp; either an _MSC_VER __cpuid "
                 "branch with /arch:AVX2 or scalar-only on Windows, depending on the .NET "
                 "wrapper's users."},
        {"id": "v1", "type": "verified_command",
         "command": "cmake --build build -j && ctest --test-dir build --output-on-failure"},
        {"id": "v2", "type": "verified_command",
         "command": "cmake -B build-asan -DCMAKE_BUILD_TYPE=Debug -DTHUMBR_SANITIZE=address -G Ninja && cmake --build build-asan -j && ctest --test-dir build-asan --output-on-failure"},
        {"id": "v3", "type": "verified_command", "required": False,
         "command": "cmake --build build-asan -j && ctest --test-dir build-asan --output-on-failure"},
        {"id": "v4", "type": "verified_command", "required": False,
         "command": "./build/bench/resize_bench --benchmark_filter=Bilinear"},
        {"id": "v5", "type": "verified_command", "required": False,
         "command": "cmake --build build -j && ./build/bench/resize_bench --benchmark_filter=Bilinear"},
        {"id": "v6", "type": "verified_command", "required": False,
         "command": "cmake -B build -DCMAKE_BUILD_TYPE=Release -G Ninja && cmake --build build -j && ./build/bench/resize_bench --benchmark_filter=Bilinear"},
    ],
    "secrets": [],
    "forbidden": [["This session is being continued"], ["Primary Request and Intent"]],
}
