# ruff: noqa: E501  (verbatim command output and file contents)
"""SwiftUI offline feed: URLCache blocked by no-store, JSON file cache, main-thread publishing (Chinese)."""

from make_sessions import Session

VIEWMODEL = '''import Foundation

final class FeedViewModel: ObservableObject {
    @Published private(set) var items: [Article] = []
    @Published private(set) var error: String?

    private let api: APIClient

    init(api: APIClient = .shared) {
        self.api = api
    }

    func load() async {
        do {
            let page = try await api.feed()
            await MainActor.run { self.items = page.items }
        } catch {
            await MainActor.run { self.error = error.localizedDescription }
        }
    }
}
'''

APICLIENT = '''import Foundation

struct APIClient {
    static let shared = APIClient(session: .shared)

    let session: URLSession
    var baseURL = URL(string: "https://api.dailyread.cn/v2")!

    func feed() async throws -> FeedPage {
        var request = URLRequest(url: baseURL.appending(path: "feed"))
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (data, response) = try await session.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw APIError.badStatus }
        return try JSONDecoder.api.decode(FeedPage.self, from: data)
    }
}
'''

TESTS_V1 = '''import XCTest
@testable import DailyRead

final class FeedCacheTests: XCTestCase {
    func testShowsLastFeedWhenOffline() async throws {
        let online = StubURLProtocol.session(returning: .fixture("feed_3_items.json"))
        let onlineVM = await FeedViewModel(api: APIClient(session: online))
        await onlineVM.load()

        let offline = StubURLProtocol.session(failingWith: URLError(.notConnectedToInternet))
        let offlineVM = await FeedViewModel(api: APIClient(session: offline))
        await offlineVM.load()

        let count = await offlineVM.items.count
        XCTAssertEqual(count, 3)
    }
}
'''

CACHE = '''import Foundation

/// 上一次成功加载的文章列表，存成 Caches 目录里的一个 JSON 文件。
/// 系统空间不足时可能清掉 Caches —— 这只是缓存，丢了下次联网再拉就行。
actor FeedCache {
    static let shared = FeedCache()

    private let url: URL

    init(directory: URL = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]) {
        url = directory.appending(path: "feed-v1.json")
    }

    func load() -> [Article]? {
        guard let data = try? Data(contentsOf: url) else { return nil }
        return try? JSONDecoder.api.decode([Article].self, from: data)
    }

    func save(_ items: [Article]) {
        guard let data = try? JSONEncoder.api.encode(Array(items.prefix(200))) else { return }
        try? data.write(to: url, options: [.atomic, .completeFileProtection])
    }

    func clear() {
        try? FileManager.default.removeItem(at: url)
    }
}
'''


def build() -> Session:
    s = Session("swiftui-offline-zh", cwd="/Users/zhangwei/Developer/DailyRead", branch="feature/offline-feed",
                start="2026-03-09T02:14:55.318Z", version="2.1.49", slug="silent-caching-crane")
    s.user(
        "文章列表要支持离线：地铁里没网的时候打开 App，至少要能看到上次加载过的内容。\n\n"
        "几个前提：最低支持 iOS 16，所以 SwiftData 和 @Observable 都用不了。不要引入第三方库"
        "（Kingfisher、Alamofire 这些都不要），包体积和合规审查都很麻烦。测试继续用 XCTest，"
        "别上 swift-testing —— CI 上的 Xcode 还是 15.4。",
        wait=5,
    )
    s.call(s.read_call("DailyRead/Feed/FeedViewModel.swift", VIEWMODEL),
           s.read_call("DailyRead/Networking/APIClient.swift", APICLIENT))
    s.say(
        "列表数据只走 `APIClient.feed()` 这一个请求。最省事的办法是让 `URLSession` 自己的 "
        "`URLCache` 兜底：请求设成 `.returnCacheDataElseLoad`，没网时直接用缓存的响应，几乎"
        "不用写代码。先加一个离线测试，再改请求。"
    )
    s.write("DailyReadTests/FeedCacheTests.swift", TESTS_V1)
    s.edit("DailyRead/Networking/APIClient.swift", '''        request.setValue("application/json", forHTTPHeaderField: "Accept")''', '''        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.cachePolicy = .returnCacheDataElseLoad''')
    s.bash("xcodebuild test -scheme DailyRead -destination 'platform=iOS Simulator,name=iPhone 15,OS=17.5' -only-testing:DailyReadTests/FeedCacheTests -quiet 2>&1 | tail -15", """\
Test Suite 'FeedCacheTests' started at 2026-03-09 10:19:03.112.
Test Case '-[DailyReadTests.FeedCacheTests testShowsLastFeedWhenOffline]' started.
/Users/zhangwei/Developer/DailyRead/DailyReadTests/FeedCacheTests.swift:15: error: -[DailyReadTests.FeedCacheTests testShowsLastFeedWhenOffline] : XCTAssertEqual failed: ("0") is not equal to ("3")
Test Case '-[DailyReadTests.FeedCacheTests testShowsLastFeedWhenOffline]' failed (0.087 seconds).
Test Suite 'FeedCacheTests' failed at 2026-03-09 10:19:03.201.
\t Executed 1 test, with 1 failure (0 unexpected) in 0.087 (0.089) seconds

Failing tests:
	DailyReadTests:
		FeedCacheTests.testShowsLastFeedWhenOffline()

** TEST FAILED **""", desc="运行离线测试", secs=64.0)
    s.say("测试没过（退出码被 `tail` 吃掉了，看最后一行）：离线时一条都没拿到。先确认一下线上接口"
          "返回的缓存头：")
    s.bash("curl -sI -H 'Authorization: Bearer '\"$DR_DEV_TOKEN\" https://api.dailyread.cn/v2/feed | grep -i -E '^(cache-control|vary|etag)'", """\
cache-control: no-store, private
vary: Authorization, Accept-Language""", desc="接口的缓存头")
    s.say(
        "原因找到了：接口返回 `Cache-Control: no-store`，`URLCache` 按规范根本不会存这个响应，"
        "`.returnCacheDataElseLoad` 再怎么设也拿不到东西。这个头是后端有意加的（推荐流是个性化"
        "的，不希望中间代理缓存），不是我们这边能改的。\n\n"
        "所以 `URLCache` 这条路放弃，撤回改动。换成自己存：每次成功加载后，把文章数组（最多 200 "
        "条）写成 Caches 目录下的一个 JSON 文件，启动时先读它再请求网络。\n\n"
        "为什么不用 Core Data：我们只需要“整份读、整份写”，没有查询、没有关系、没有增量更新，"
        "上 Core Data 就是为一个文件引入整套模型和迁移。放在 Caches 目录里，系统空间紧张时可能"
        "被清掉——对缓存来说正合适。"
    )
    s.edit("DailyRead/Networking/APIClient.swift", '''        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.cachePolicy = .returnCacheDataElseLoad''', '''        request.setValue("application/json", forHTTPHeaderField: "Accept")''')
    s.write("DailyRead/Feed/FeedCache.swift", CACHE)
    s.write("DailyRead/Feed/FeedViewModel.swift", '''import Foundation

final class FeedViewModel: ObservableObject {
    @Published private(set) var items: [Article] = []
    @Published private(set) var error: String?
    @Published private(set) var isShowingCached = false

    private let api: APIClient
    private let cache: FeedCache

    init(api: APIClient = .shared, cache: FeedCache = .shared) {
        self.api = api
        self.cache = cache
    }

    func load() async {
        if items.isEmpty, let cached = await cache.load() {
            items = cached
            isShowingCached = true
        }
        do {
            let page = try await api.feed()
            items = page.items
            isShowingCached = false
            await cache.save(page.items)
        } catch {
            self.error = error.localizedDescription
        }
    }
}
''')
    s.edit("DailyReadTests/FeedCacheTests.swift", '''        let online = StubURLProtocol.session(returning: .fixture("feed_3_items.json"))
        let onlineVM = await FeedViewModel(api: APIClient(session: online))
        await onlineVM.load()

        let offline = StubURLProtocol.session(failingWith: URLError(.notConnectedToInternet))
        let offlineVM = await FeedViewModel(api: APIClient(session: offline))''', '''        let dir = FileManager.default.temporaryDirectory.appending(path: UUID().uuidString)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let cache = FeedCache(directory: dir)

        let online = StubURLProtocol.session(returning: .fixture("feed_3_items.json"))
        let onlineVM = await FeedViewModel(api: APIClient(session: online), cache: cache)
        await onlineVM.load()

        let offline = StubURLProtocol.session(failingWith: URLError(.notConnectedToInternet))
        let offlineVM = await FeedViewModel(api: APIClient(session: offline), cache: cache)''')
    s.bash("xcodebuild test -scheme DailyRead -destination 'platform=iOS Simulator,name=iPhone 15,OS=17.5' -only-testing:DailyReadTests/FeedCacheTests -quiet 2>&1 | tail -15", """\
Test Suite 'FeedCacheTests' started at 2026-03-09 10:31:44.902.
Test Case '-[DailyReadTests.FeedCacheTests testShowsLastFeedWhenOffline]' started.
DailyRead[48113:6021177] [SwiftUI] Publishing changes from background threads is not allowed; make sure to publish values from the main thread (via operators like receive(on:)) on model updates.
DailyRead[48113:6021177] [SwiftUI] Publishing changes from background threads is not allowed; make sure to publish values from the main thread (via operators like receive(on:)) on model updates.
Test Case '-[DailyReadTests.FeedCacheTests testShowsLastFeedWhenOffline]' passed (0.142 seconds).
Test Suite 'FeedCacheTests' passed at 2026-03-09 10:31:45.049.
\t Executed 1 test, with 0 failures (0 unexpected) in 0.142 (0.147) seconds
** TEST SUCCEEDED **""", desc="运行离线测试", secs=58.0)
    s.say(
        "测试过了，但日志里有两条 `Publishing changes from background threads is not allowed`。"
        "这是我刚引入的：旧代码用 `MainActor.run` 包着赋值，我改写时去掉了，`load()` 在 "
        "`await cache.load()` 之后会在别的线程上恢复，`@Published` 就在后台线程被改了。真机上"
        "这会导致列表偶尔不刷新甚至崩溃。\n\n"
        "正确做法是把整个 `FeedViewModel` 标成 `@MainActor`——iOS 16 完全支持，而且以后谁再加 "
        "`@Published` 属性也不会踩同样的坑。"
    )
    s.edit("DailyRead/Feed/FeedViewModel.swift", '''import Foundation

final class FeedViewModel: ObservableObject {''', '''import Foundation

@MainActor
final class FeedViewModel: ObservableObject {''')
    s.bash("xcodebuild test -scheme DailyRead -destination 'platform=iOS Simulator,name=iPhone 15,OS=17.5' -only-testing:DailyReadTests/FeedCacheTests -quiet 2>&1 | tail -15", """\
Test Suite 'FeedCacheTests' started at 2026-03-09 10:36:20.530.
Test Case '-[DailyReadTests.FeedCacheTests testShowsLastFeedWhenOffline]' started.
Test Case '-[DailyReadTests.FeedCacheTests testShowsLastFeedWhenOffline]' passed (0.121 seconds).
Test Suite 'FeedCacheTests' passed at 2026-03-09 10:36:20.655.
\t Executed 1 test, with 0 failures (0 unexpected) in 0.121 (0.125) seconds
** TEST SUCCEEDED **""", desc="运行离线测试", secs=55.0)
    s.read("DailyRead/Feed/FeedView.swift", '''import SwiftUI

struct FeedView: View {
    @StateObject private var model = FeedViewModel()

    var body: some View {
        List(model.items) { article in
            ArticleRow(article: article)
        }
        .overlay { if model.items.isEmpty && model.error != nil { ContentUnavailableView("加载失败", systemImage: "wifi.slash") } }
        .task { await model.load() }
        .refreshable { await model.load() }
    }
}
''')
    s.edit("DailyRead/Feed/FeedView.swift", '''        List(model.items) { article in
            ArticleRow(article: article)
        }''', '''        List {
            if model.isShowingCached {
                Label("当前离线，显示的是上次加载的内容", systemImage: "icloud.slash")
                    .font(.footnote)
                    .foregroundStyle(.secondary)
            }
            ForEach(model.items) { article in
                ArticleRow(article: article)
            }
        }''')
    s.bash("swiftlint --strict && xcodebuild test -scheme DailyRead -destination 'platform=iOS Simulator,name=iPhone 15,OS=17.5' -quiet 2>&1 | tail -4", """\
Linting 'FeedView.swift' (87/87)
Done linting! Found 0 violations, 0 serious in 87 files.
\t Executed 64 tests, with 0 failures (0 unexpected) in 3.418 (3.502) seconds
** TEST SUCCEEDED **""", desc="SwiftLint 和全部测试", secs=140.0)
    s.say(
        "`ContentUnavailableView` 是 iOS 17 的 API，我注意到 `FeedView` 里已经在用了……等一下，"
        "确认一下它有没有 availability 包裹。"
    )
    s.bash("grep -rn 'ContentUnavailableView' DailyRead/ | head; grep -n 'IPHONEOS_DEPLOYMENT_TARGET' DailyRead.xcodeproj/project.pbxproj | sort -u", """\
DailyRead/Feed/FeedView.swift:19:        .overlay { if model.items.isEmpty && model.error != nil { ContentUnavailableView("加载失败", systemImage: "wifi.slash") } }
DailyRead/Compat/ContentUnavailableView+iOS16.swift:3:/// iOS 16 上的简易替代，iOS 17 起由系统的同名视图覆盖。
				IPHONEOS_DEPLOYMENT_TARGET = 16.0;""", desc="检查 iOS 17 API 的使用")
    s.say(
        "没问题，项目里有一个 iOS 16 的兼容实现（`Compat/ContentUnavailableView+iOS16.swift`），"
        "部署目标也确实是 16.0。\n\n"
        "完成：\n"
        "- `FeedCache`（actor）：上次成功的列表存为 Caches 目录下的 `feed-v1.json`，最多 200 条，"
        "文件加了 `completeFileProtection`。\n"
        "- `FeedViewModel` 标为 `@MainActor`，先显示缓存再请求网络；离线时列表顶部有提示。\n"
        "- 没有新依赖，没用 iOS 17 的 API，测试仍是 XCTest。\n"
        "- SwiftLint 无告警，64 个测试全部通过。\n\n"
        "还没做：图片。`AsyncImage` 不落盘，离线时文章封面都是灰色占位。要离线显示封面，得自己"
        "写一个小的磁盘图片缓存（不引第三方库的话大概 100 行）。"
    )
    s.turn_end()
    s.user("好。另外想到一个问题：用户退出登录的时候，这个缓存要不要清掉？", wait=100)
    s.say(
        "我倾向于清掉：推荐流是按账号个性化的，换一个人登录如果先看到上一个人的推荐，算是隐私"
        "问题。`FeedCache` 已经有 `clear()`，在退出登录的流程里调用一行就行。\n\n"
        "不过这也取决于产品怎么定义“退出登录”（比如家庭共享设备、或者只是切换账号的情况），所以"
        "我先没有接上。你们确认之后我再加。"
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "SwiftUI / iOS 16, whole session in Chinese",
        "three rules in the first prompt (iOS 16: no SwiftData/@Observable; no third-party libs; XCTest because CI has Xcode 15.4)",
        "xcodebuild failure behind `| tail` (exit 0)",
        "URLCache approach abandoned (Cache-Control: no-store)",
        "JSON file in Caches instead of Core Data, with the why",
        "runtime warning in a passing test (publishing from background threads) fixed with @MainActor",
        "todo (images offline) and an open question (clear cache on logout) at the end",
    ],
    "language": "zh",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "project_fact"],
         "match": [["iOS 16"], ["SwiftData", "@Observable"]],
         "note": "最低支持 iOS 16：不能用 SwiftData 和 @Observable。"},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["第三方库", "第三方"], ["包体积", "合规", "Kingfisher", "Alamofire"]],
         "note": "不引入第三方库（Kingfisher、Alamofire 等），包体积和合规审查都麻烦。"},
        {"id": "c3", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["XCTest", "swift-testing"], ["15.4", "CI"]],
         "note": "测试继续用 XCTest，不用 swift-testing：CI 上的 Xcode 还是 15.4。"},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "bug_note"],
         "match": [["URLCache", "returnCacheDataElseLoad"], ["no-store"]],
         "note": "用 URLCache + .returnCacheDataElseLoad 做离线不行：接口返回 Cache-Control: "
                 "no-store（后端有意为之），响应根本不会被缓存。"},
        {"id": "d1", "type": "decision",
         "match": [["JSON", "feed-v1.json", "FeedCache"], ["Core Data", "整份"]],
         "note": "上次成功的列表存成 Caches 目录下的 JSON 文件（最多 200 条），不用 Core Data，"
                 "因为只需要整份读写，没有查询和关系。"},
        {"id": "b1", "type": "bug_note", "types": ["bug_note", "decision"],
         "match": [["@MainActor", "MainActor"], ["background threads", "后台线程"]],
         "note": "改写 load() 后 @Published 在后台线程被修改（Publishing changes from background "
                 "threads）；FeedViewModel 整体标为 @MainActor。"},
        {"id": "t1", "type": "todo",
         "match": [["AsyncImage", "图片", "封面"], ["离线", "磁盘", "缓存"]],
         "note": "离线时封面是灰色占位：AsyncImage 不落盘，需要自己写磁盘图片缓存。"},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo", "decision"],
         "match": [["退出登录"], ["clear", "清掉", "隐私"]],
         "note": "退出登录时是否清除 FeedCache（个性化推荐 → 隐私）；clear() 已有，等产品确认后再接上。"},
        {"id": "x1", "type": "project_fact", "required": False,
         "match": [["ContentUnavailableView"], ["iOS 16", "Compat"]],
         "note": "项目在 Compat/ 里有 ContentUnavailableView 的 iOS 16 兼容实现。"},
        {"id": "v1", "type": "verified_command",
         "command": "xcodebuild test -scheme DailyRead -destination 'platform=iOS Simulator,name=iPhone 15,OS=17.5' -only-testing:DailyReadTests/FeedCacheTests -quiet"},
        {"id": "v2", "type": "verified_command",
         "command": "swiftlint --strict && xcodebuild test -scheme DailyRead -destination 'platform=iOS Simulator,name=iPhone 15,OS=17.5' -quiet"},
    ],
    "secrets": [],
    "forbidden": [],
}
