# ruff: noqa: E501  (verbatim command output and file contents)
"""Empty: a throw-away Zig comptime experiment in /tmp, unrelated to work, deleted at the end (Chinese)."""

from make_sessions import Session

MAIN_V1 = '''const std = @import("std");

// 编译期生成 CRC32 查找表
const table = blk: {
    var t: [256]u32 = undefined;
    for (&t, 0..) |*entry, i| {
        var c: u32 = i;
        for (0..8) |_| {
            c = if (c & 1 != 0) 0xEDB88320 ^ (c >> 1) else c >> 1;
        }
        entry.* = c;
    }
    break :blk t;
};

fn crc32(data: []const u8) u32 {
    var c: u32 = 0xFFFFFFFF;
    for (data) |b| c = table[(c ^ b) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFF;
}

pub fn main() !void {
    const s = "The quick brown fox jumps over the lazy dog";
    std.debug.print("crc32 = 0x{x}\\n", .{crc32(s)});
}
'''


def build() -> Session:
    s = Session("zig-comptime-scratch-zh", cwd="/home/wei/playground", branch="",
                start="2026-03-29T12:40:05.377Z", version="2.1.60", slug="scratch-comptime-panda")
    s.user(
        "跟工作没关系，我就是好奇：Zig 的 comptime 能不能在编译期把一张查找表算出来？比如 CRC32 那种 256 项的表。"
        "在 /tmp 下面随便写个小例子跑一下给我看看就行，不用管代码质量。",
        wait=4,
    )
    s.bash("zig version", "0.13.0", desc="Zig 版本")
    s.say("可以。`comptime` 块里的普通循环会在编译期执行，结果作为常量写进二进制。写个最小的例子：")
    s.bash("mkdir -p /tmp/zigtry", "", desc="临时目录")
    s.write("/tmp/zigtry/main.zig", MAIN_V1)
    s.bash("cd /tmp/zigtry && zig run main.zig", '''main.zig:7:22: error: expected type 'u32', found 'usize'
        var c: u32 = i;
                     ^
main.zig:7:22: note: unsigned 32-bit int cannot represent all possible unsigned 64-bit values''', code=1, desc="运行")
    s.say("`for` 的索引是 `usize`，要显式转成 `u32`：")
    s.edit("/tmp/zigtry/main.zig", "        var c: u32 = i;", "        var c: u32 = @intCast(i);")
    s.bash("cd /tmp/zigtry && zig run main.zig", '''main.zig:4:15: error: evaluation exceeded 1000 backwards branches
const table = blk: {
              ^~~
main.zig:4:15: note: use @setEvalBranchQuota() to raise the branch limit from 1000''', code=1, desc="运行")
    s.say(
        "这个很有代表性：编译期求值有个分支次数上限（默认 1000），256 × 8 次循环超过了。"
        "用 `@setEvalBranchQuota` 调高就行："
    )
    s.edit("/tmp/zigtry/main.zig", '''    var t: [256]u32 = undefined;''', '''    @setEvalBranchQuota(5000);
    var t: [256]u32 = undefined;''')
    s.bash("cd /tmp/zigtry && zig run main.zig", "crc32 = 0x414fa339", desc="运行")
    s.bash("cd /tmp/zigtry && zig build-exe main.zig -O ReleaseSmall && objdump -s -j .rodata main | head -6", '''
main:     file format elf64-x86-64

Contents of section .rodata:
 1002a0 00000000 96300777 2c610eee ba51099a  .....0.w,a...Q..
 1002b0 076d0ec4 3e5d0a27 0e5d1adc ea340ae3  .m..>].'.]...4..''', desc="看看表是否在 .rodata 里")
    s.say(
        "跑通了：`0x414fa339` 就是这句话的标准 CRC32。\n\n"
        "- 整张表在编译期算好，`.rodata` 里能直接看到 `00000000 96300777 …`（表的前几项），运行时没有初始化代码。\n"
        "- 踩到的两个点：循环索引是 `usize` 需要 `@intCast`；编译期循环超过 1000 次分支要 `@setEvalBranchQuota`。\n\n"
        "文件在 `/tmp/zigtry/`。"
    )
    s.turn_end()
    s.user("有意思，跟 C++ 的 constexpr 差不多嘛。行了，就是试试，删了吧", wait=60)
    s.bash("rm -rf /tmp/zigtry", "", desc="删除临时目录")
    s.say("删掉了。")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "empty: a throw-away experiment the user calls unrelated to work and 'just a try' (跟工作没关系 / 就是试试)",
        "files written and edited in /tmp, two compile errors and a passing `zig run`, all deleted at the end",
        "no project, no git branch; nothing a colleague would keep for the project",
    ],
    "language": "zh",
    "empty": True,
    "items": [],
    "secrets": [],
    "forbidden": [],
}
