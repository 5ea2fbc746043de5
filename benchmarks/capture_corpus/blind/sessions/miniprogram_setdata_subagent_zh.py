# ruff: noqa: E501  (verbatim command output and file contents)
"""WeChat mini program order list sending the whole list on every setData (over 1024 KB); per-item path updates tried and dropped; a Task subagent rewrites it as one array per page (Chinese)."""

from make_sessions import Call, Session

ORDERS_JS = '''const api = require('../../utils/api')

Page({
  data: {
    list: [],
    page: 1,
    noMore: false,
    loading: false,
  },

  onLoad() {
    this.loadMore()
  },

  onReachBottom() {
    this.loadMore()
  },

  async loadMore() {
    if (this.data.loading || this.data.noMore) return
    this.setData({ loading: true })
    const res = await api.get('/tuan/orders', { page: this.data.page, size: 20 })
    this.setData({
      list: this.data.list.concat(res.items),
      page: this.data.page + 1,
      noMore: res.items.length < 20,
      loading: false,
    })
  },
})
'''

ORDERS_WXML = '''<view class="orders">
  <view wx:for="{{list}}" wx:key="id" class="order-card">
    <image src="{{item.cover}}" mode="aspectFill" lazy-load />
    <view class="title">{{item.title}}</view>
    <view class="meta">{{item.leaderName}} · ¥{{item.amountText}}</view>
  </view>
  <view wx:if="{{noMore}}" class="no-more">没有更多了</view>
</view>
'''

AGENT_PROMPT = """在 /Users/lin/work/tuanzhang-mp（微信原生小程序，基础库 3.3.x）里改订单列表页 pages/orders：
- 问题：loadMore 每次 setData 整个 list（concat），翻到 30 页左右单次 setData 超过 1024 KB。
- 改法：data 改成二维数组 pages: [[...第1页], [...第2页]]，加载第 n 页时只 setData({ ['pages[' + (n-1) + ']']: items })，每次只传这一页。
- 列表项只保留 wxml 里用到的字段：id、cover、title、leaderName、amountText（接口返回的 detailHtml、skuList 很大，列表不用）。
- wxml 用两层 wx:for；注意内层的 wx:for-item / wx:key，不要和外层的 item 冲突。
- 不许引入 npm 包或第三方组件库（主包已经 1.9 MB，上限 2 MB）。
- 在 test/orders.test.js 用 miniprogram-simulate + jest 写测试：连续加载 3 页后页面上有 60 个 .order-card；第 2 页的 setData 只包含 pages[1]。
- 跑 npx jest，把改了哪些文件、结果告诉我。"""

AGENT_REPORT = """完成。

改动：
- **pages/orders/orders.js**：`data.list` 改为 `data.pages`（二维数组）。`loadMore` 只 `setData({ ['pages[' + idx + ']']: slim(items) })`，外加 page/noMore/loading。新增 `slim()`，只保留 id、cover、title、leaderName、amountText。
- **pages/orders/orders.wxml**：外层 `<block wx:for="{{pages}}" wx:for-item="pageItems" wx:for-index="pi">`（外层是页，没有稳定 id，不设 key）；内层 `wx:for="{{pageItems}}" wx:key="id"`。
- **test/orders.test.js**（新）：2 个用例。

过程中第一次跑 jest 失败：内层 wx:for 没写 wx:for-item 时，默认的 `item` 指向外层那一页（一个数组），`{{item.title}}` 全是空，`.order-card` 数量对但内容为空。已在内层加 `wx:for-item="order"` 修好。

`npx jest`：2 个用例通过（另外 9 个原有用例也通过，共 11 个）。

顺带发现：pages/goods/goods.js 的 `onReachBottom` 也是 `this.data.goods.concat(...)` 整个列表 setData，同样的问题，我没改。"""


def build() -> Session:
    s = Session("miniprogram-setdata-subagent-zh", cwd="/Users/lin/work/tuanzhang-mp", branch="fix/orders-setdata",
                start="2026-07-08T03:12:47.660Z", version="2.1.72", slug="setdata-pages-magpie", stop_reasons=True)
    s.user(
        "团长端小程序的订单列表，往下翻久了会卡，真机调试控制台一直刷这个：\n\n"
        "```\n[Perf] setData 数据传输长度为 1187 KB，存在有性能问题！\n```\n\n"
        "有个团长说翻到后面直接白屏。帮看下 pages/orders。别引 Vant 之类的组件库，主包已经快 2M 了",
        wait=5,
    )
    s.call(s.read_call("pages/orders/orders.js", ORDERS_JS), s.read_call("pages/orders/orders.wxml", ORDERS_WXML))
    s.bash("curl -s 'https://mock.tuanzhang.local/tuan/orders?page=1&size=20' | python3 -c 'import sys,json; d=json.load(sys.stdin); print(len(json.dumps(d[\"items\"], ensure_ascii=False).encode())); print(sorted(d[\"items\"][0].keys()))'",
           '''58712
['amountText', 'cover', 'detailHtml', 'id', 'leaderName', 'skuList', 'status', 'title']''', desc="一页数据有多大（mock 接口）")
    s.say(
        "原因很清楚：`loadMore` 每次都 `setData({ list: this.data.list.concat(res.items) })`，把**整个列表**从逻辑层"
        "传到渲染层。一页 20 条约 57 KB（大头是列表根本不用的 `detailHtml` 和 `skuList`），翻到第 20 页就是 1.1 MB 一次，"
        "而单次 setData 上限是 1024 KB，超了就会失败——团长说的白屏应该就是这个。\n\n"
        "先试最小的改动：不 concat，按下标逐条 setData 新加的这一页，每次只传新数据。"
    )
    s.edit("pages/orders/orders.js", '''    this.setData({
      list: this.data.list.concat(res.items),
      page: this.data.page + 1,
      noMore: res.items.length < 20,
      loading: false,
    })''', '''    const start = this.data.list.length
    res.items.forEach((item, i) => {
      this.setData({ ['list[' + (start + i) + ']']: item })
    })
    this.setData({
      page: this.data.page + 1,
      noMore: res.items.length < 20,
      loading: false,
    })''')
    s.bash("npx jest test/perf-setdata.test.js", '''PASS test/perf-setdata.test.js
  orders setData
    ✓ 单次 setData 不超过 256 KB (318 ms)

  setData 调用统计（加载 30 页）:
    次数: 630   最大单次: 3.1 KB   总计: 1.69 MB

Tests:       1 passed, 1 total
Time:        2.107 s''', desc="setData 体积测试", secs=5)
    s.say(
        "单次确实小了（最大 3 KB），但每页变成 21 次 setData，30 页 630 次。每次 setData 都是一次逻辑层到渲染层的"
        "通信，真机上这样滚动时会一卡一卡的，比原来只是换了个卡法。这条路不行，撤回。\n\n"
        "正确的做法是二维数组：`pages[n]` 存第 n 页，每次 `setData({ ['pages[n]']: items })` 只传一页、只调一次，"
        "同时列表项只保留 wxml 用到的字段。改动涉及 js、wxml 和新测试，我交给子代理去做。"
    )
    s.edit("pages/orders/orders.js", '''    const start = this.data.list.length
    res.items.forEach((item, i) => {
      this.setData({ ['list[' + (start + i) + ']']: item })
    })
    this.setData({
      page: this.data.page + 1,''', '''    this.setData({
      list: this.data.list.concat(res.items),
      page: this.data.page + 1,''')
    s.bash("node scripts/pkg-size.js", '''main package: 1.93 MB / 2.00 MB
subpackages: 3 (total 2.41 MB)''', desc="主包体积")
    s.say("主包 1.93 MB / 2 MB。顺便确认了一下官方的 recycle-view（虚拟列表）也不考虑：它要走 npm 构建，主包放不下，而且二维数组已经够用。")
    s.call(Call("Task", {"description": "订单列表改二维数组 setData", "prompt": AGENT_PROMPT, "subagent_type": "general-purpose"},
                [{"type": "text", "text": AGENT_REPORT},
                 {"type": "text", "text": "agentId: e51a9c3 (for resuming to continue this agent's work if needed)"}],
                {"status": "completed", "prompt": AGENT_PROMPT, "agentId": "e51a9c3",
                 "content": [{"type": "text", "text": AGENT_REPORT}], "totalDurationMs": 241877,
                 "totalTokens": 38211, "totalToolUseCount": 14,
                 "usage": {"input_tokens": 6, "cache_creation_input_tokens": 4120,
                           "cache_read_input_tokens": 32807, "output_tokens": 1602}}, secs=242))
    s.say("子代理说改完了，我自己看一下改动并重新跑测试。")
    s.bash("git diff --stat", ''' pages/orders/orders.js   | 27 ++++++++++++++++++---------
 pages/orders/orders.wxml | 12 +++++++-----
 test/orders.test.js      | 58 ++++++++++++++++++++++++++++++++++++++++++++++++++++++++++
 3 files changed, 79 insertions(+), 18 deletions(-)''', desc="改动概览")
    s.read("pages/orders/orders.wxml", '''<view class="orders">
  <block wx:for="{{pages}}" wx:for-item="pageItems" wx:for-index="pi">
    <view wx:for="{{pageItems}}" wx:for-item="order" wx:key="id" class="order-card">
      <image src="{{order.cover}}" mode="aspectFill" lazy-load />
      <view class="title">{{order.title}}</view>
      <view class="meta">{{order.leaderName}} · ¥{{order.amountText}}</view>
    </view>
  </block>
  <view wx:if="{{noMore}}" class="no-more">没有更多了</view>
</view>
''')
    s.bash("npx jest && npx eslint pages/ utils/", '''PASS test/orders.test.js
PASS test/perf-setdata.test.js
PASS test/utils/format.test.js
PASS test/utils/api.test.js

  setData 调用统计（加载 30 页）:
    次数: 30   最大单次: 19.8 KB   总计: 0.58 MB

Test Suites: 4 passed, 4 total
Tests:       11 passed, 11 total
Time:        3.884 s''', desc="全部测试 + eslint", secs=8)
    s.say(
        "都通过，eslint 无输出。30 页只有 30 次 setData，最大单次 19.8 KB（瘦身后一页约 20 KB，原来 57 KB）。\n\n"
        "总结：\n"
        "- **原因**：`loadMore` 每次把整个 `list` concat 后 setData，20 页左右超过单次 1024 KB 上限，真机上白屏。\n"
        "- **试过放弃**：按下标逐条 setData——单次小了，但每页 21 次通信（30 页 630 次），滚动更卡。已撤回。\n"
        "- **改法**（子代理完成）：`data.pages` 二维数组，每页一次 `setData({ ['pages[n]']: items })`；列表项只留 5 个字段"
        "（去掉 `detailHtml`、`skuList`）。内层 `wx:for` 用 `wx:for-item=\"order\"`，否则 `item` 指向外层那一页、内容全空。\n"
        "- 没用 recycle-view：要 npm 构建，主包 1.93 MB 放不下。\n"
        "- `npx jest` 11 个用例通过。\n\n"
        "没改：子代理发现 `pages/goods/goods.js` 的 `onReachBottom` 也是整列表 concat，同样的问题。"
    )
    s.turn_end()
    s.user(
        "好。goods 那个下个迭代再弄，这次只发订单页。红米那台白屏是不是也是这个原因我不确定，明天让测试小美用那台再复现一下",
        wait=75,
    )
    s.say("好的，这次只包含订单页的改动。")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "WeChat native mini program (miniprogram-simulate + jest, eslint), Chinese; a pasted [Perf] setData warning",
        "a rule in the first prompt (no Vant or other component library, main package near 2 MB)",
        "whole list concat in every setData over the 1024 KB limit (blank screen)",
        "per-item path setData tried, measured (630 calls for 30 pages) and reverted with its why",
        "recycle-view looked into and dropped (npm build, main package 1.93 MB)",
        "a Task subagent doing the edits (2D array per page, slimmed fields) and reporting a wxml pitfall and a second page with the same bug",
        "the assistant checking the subagent's work and re-running the tests",
        "todo for the next iteration (goods page) and an unconfirmed cause left to a tester (Xiaomei, Redmi)",
    ],
    "language": "zh",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["Vant", "组件库"], ["2M", "2 MB", "主包"]],
         "note": "不引入 Vant 等第三方组件库：主包已经快 2 MB（1.93 MB / 2 MB）。"},
        {"id": "b1", "type": "bug_note",
         "match": [["concat"], ["setData"], ["1024", "白屏"]],
         "note": "订单列表 loadMore 每次把整个 list concat 后 setData，20 页左右超过单次 1024 KB 上限，真机白屏。"},
        {"id": "f1", "type": "failed_attempt",
         "match": [["逐条", "按下标"], ["630", "卡", "通信"]],
         "note": "按下标逐条 setData：单次变小，但每页 21 次通信（30 页 630 次），滚动更卡，已撤回。"},
        {"id": "d1", "type": "decision",
         "match": [["二维数组", "pages["], ["一页", "每页"]],
         "note": "列表改成二维数组 data.pages，每页只 setData 一次 pages[n]，只传这一页；列表项只留 wxml 用到的 5 个字段。"},
        {"id": "x1", "type": "project_fact", "types": ["project_fact", "bug_note"],
         "match": [["detailHtml", "skuList"], ["瘦身", "字段", "57 KB"]],
         "note": "接口列表项里的 detailHtml、skuList 很大（一页约 57 KB），列表页不用，slim() 去掉后一页约 20 KB。"},
        {"id": "b2", "type": "bug_note",
         "match": [["wx:for-item"], ["item", "外层"]],
         "note": "两层 wx:for 时内层要写 wx:for-item（如 order），否则 item 指向外层那一页，内容全空。"},
        {"id": "f2", "type": "failed_attempt", "required": False,
         "match": [["recycle-view"], ["npm", "主包"]],
         "note": "官方 recycle-view 虚拟列表没用：要 npm 构建，主包放不下。"},
        {"id": "t1", "type": "todo",
         "match": [["goods"], ["下个迭代", "concat"]],
         "note": "pages/goods/goods.js 的 onReachBottom 也是整列表 concat setData，下个迭代再改。"},
        {"id": "q1", "type": "open_question",
         "match": [["红米"], ["小美", "复现"]],
         "note": "红米那台白屏是不是同一个原因不确定，明天让测试小美复现。"},
        {"id": "v1", "type": "verified_command", "command": "npx jest && npx eslint pages/ utils/"},
        {"id": "v2", "type": "verified_command", "command": "npx jest test/perf-setdata.test.js", "required": False},
    ],
    "secrets": [],
    "forbidden": [["agentId"], ["for resuming to continue this agent"]],
}
