# ruff: noqa: E501  (verbatim command output and file contents)
"""Flutter + Riverpod 2 (generator): double fetch on pull-to-refresh, use after dispose; interrupted flutter run (German)."""

from make_sessions import Session

NOTIFIER = '''import 'package:riverpod_annotation/riverpod_annotation.dart';

import '../../core/api_client.dart';
import 'product.dart';

part 'product_list_provider.g.dart';

@riverpod
class ProductList extends _$ProductList {
  @override
  Future<List<Product>> build() => _fetch();

  Future<List<Product>> _fetch() async {
    final api = ref.read(apiClientProvider);
    final res = await api.get<List<dynamic>>('/v2/products');
    return res.data!.map((e) => Product.fromJson(e as Map<String, dynamic>)).toList();
  }

  Future<void> refresh() async {
    state = const AsyncLoading();
    state = await AsyncValue.guard(_fetch);
  }
}
'''

SCREEN = '''class ProductListScreen extends ConsumerWidget {
  const ProductListScreen({super.key});

  @override
  Widget build(BuildContext context, WidgetRef ref) {
    final products = ref.watch(productListProvider);
    return RefreshIndicator(
      onRefresh: () async {
        ref.invalidate(productListProvider);
        await ref.read(productListProvider.notifier).refresh();
      },
      child: products.when(
        data: (items) => ListView.builder(
          itemCount: items.length,
          itemBuilder: (_, i) => ProductTile(product: items[i]),
        ),
        loading: () => const Center(child: CircularProgressIndicator()),
        error: (e, _) => ErrorView(error: e),
      ),
    );
  }
}
'''

TEST = '''import 'package:flutter_riverpod/flutter_riverpod.dart';
import 'package:flutter_test/flutter_test.dart';
import 'package:lager/core/api_client.dart';
import 'package:lager/features/products/product_list_provider.dart';

import '../../fakes/fake_api_client.dart';

void main() {
  test('pull-to-refresh fetches once', () async {
    final api = FakeApiClient(products: [fakeProduct(1)]);
    final container = ProviderContainer(overrides: [apiClientProvider.overrideWithValue(api)]);
    addTearDown(container.dispose);

    await container.read(productListProvider.future);
    api.calls.clear();

    await container.refresh(productListProvider.future);
    expect(api.calls.where((c) => c == '/v2/products').length, 1);
  });

  test('no state write after dispose', () async {
    final api = FakeApiClient(products: [fakeProduct(1)], delay: const Duration(milliseconds: 200));
    final container = ProviderContainer(overrides: [apiClientProvider.overrideWithValue(api)]);
    final sub = container.listen(productListProvider, (_, __) {});
    sub.close();
    container.dispose();
    await Future<void>.delayed(const Duration(milliseconds: 300));
  });
}
'''


def build() -> Session:
    s = Session("flutter-riverpod-refresh-de", cwd="/Users/jonas/dev/lager-app", branch="fix/artikelliste-refresh",
                start="2026-07-14T08:03:40.551Z", version="2.1.58", slug="pull-refresh-dachs")
    s.user(
        "Artikelliste lädt beim pull to refresh doppelt (sieht man im Proxy, 2x GET /v2/products) "
        "und ab und zu crasht es mit\n\nBad state: Tried to use ProductList after `dispose` was called.\n\n"
        "wenn man schnell zurück navigiert. Kannst du das fixen? Wir nutzen riverpod 2 mit "
        "riverpod_generator, kein Bloc/Provider, bitte so wie in den anderen features",
        wait=5,
    )
    s.call(s.read_call("lib/features/products/product_list_provider.dart", NOTIFIER),
           s.read_call("lib/features/products/product_list_screen.dart", SCREEN))
    s.say(
        "Das doppelte Laden kommt aus `onRefresh`: `ref.invalidate(productListProvider)` baut den "
        "Provider neu (erster GET), danach ruft `refresh()` `_fetch` noch einmal auf (zweiter "
        "GET). Und der Crash: `refresh()` schreibt nach dem `await` in `state`, auch wenn der "
        "Screen inzwischen weg und der autoDispose-Provider entsorgt ist.\n\n"
        "Ich probiere zuerst, die Liste am Leben zu halten, dann gibt es kein dispose mehr mitten "
        "im Request:"
    )
    s.edit("lib/features/products/product_list_provider.dart", '''  @override
  Future<List<Product>> build() => _fetch();''', '''  @override
  Future<List<Product>> build() {
    ref.keepAlive();
    return _fetch();
  }''')
    s.call(s.rejected_call("Bash", {"command": "flutter run -d emulator-5554", "description": "App im Emulator starten"}, secs=140.0))
    s.interrupt(for_tool=True)
    s.user(
        "kein flutter run hier bitte, das blockiert ewig und der emulator ist bei mir eh offen. ich "
        "teste selber am gerät.\n\nund keepAlive auf der artikelliste hatten wir schon mal: nach "
        "logout + login mit anderem mandanten stehen dann die artikel vom alten mandanten drin. "
        "das muss raus",
        wait=15,
    )
    s.edit("lib/features/products/product_list_provider.dart", '''  @override
  Future<List<Product>> build() {
    ref.keepAlive();
    return _fetch();
  }''', '''  @override
  Future<List<Product>> build() => _fetch();''')
    s.grep("CancelToken", ["lib/features/orders/order_list_provider.dart", "lib/features/suppliers/supplier_detail_provider.dart"], glob="lib/**/*.dart")
    s.call(s.read_call("lib/features/orders/order_list_provider.dart", '''@riverpod
class OrderList extends _$OrderList {
  @override
  Future<List<Order>> build() async {
    final cancel = CancelToken();
    ref.onDispose(cancel.cancel);
    final api = ref.read(apiClientProvider);
    final res = await api.get<List<dynamic>>('/v2/orders', cancelToken: cancel);
    return res.data!.map((e) => Order.fromJson(e as Map<String, dynamic>)).toList();
  }
}
''', limit=11))
    s.say(
        "Verstanden, keepAlive ist wieder raus, und ich starte nichts mehr.\n\n"
        "Die Bestellliste macht es schon richtig: ein Dio-`CancelToken`, das in `ref.onDispose` "
        "abgebrochen wird. Dann stirbt der Request zusammen mit dem Provider, und nach dem "
        "Zurücknavigieren schreibt niemand mehr in `state`. Das übernehme ich, und die eigene "
        "`refresh()`-Methode fliegt raus — `ref.refresh(productListProvider.future)` im Screen "
        "reicht, das ist genau ein Neuaufbau, also ein GET."
    )
    s.write("lib/features/products/product_list_provider.dart", '''import 'package:dio/dio.dart';
import 'package:riverpod_annotation/riverpod_annotation.dart';

import '../../core/api_client.dart';
import 'product.dart';

part 'product_list_provider.g.dart';

@riverpod
class ProductList extends _$ProductList {
  @override
  Future<List<Product>> build() async {
    // Request endet mit dem Provider: kein state-Schreiben nach dispose (wie OrderList).
    final cancel = CancelToken();
    ref.onDispose(cancel.cancel);
    final api = ref.read(apiClientProvider);
    final res = await api.get<List<dynamic>>('/v2/products', cancelToken: cancel);
    return res.data!.map((e) => Product.fromJson(e as Map<String, dynamic>)).toList();
  }
}
''')
    s.edit("lib/features/products/product_list_screen.dart", '''      onRefresh: () async {
        ref.invalidate(productListProvider);
        await ref.read(productListProvider.notifier).refresh();
      },''', '''      onRefresh: () => ref.refresh(productListProvider.future),''')
    s.write("test/features/products/product_list_test.dart", TEST)
    s.bash("flutter test test/features/products/product_list_test.dart 2>&1 | tail -15", '''00:03 +0: loading /Users/jonas/dev/lager-app/test/features/products/product_list_test.dart
test/fakes/fake_api_client.dart:14:26: Error: No named parameter with the name 'cancelToken'.
  Future<Response<T>> get<T>(String path) async {
                         ^^^
lib/features/products/product_list_provider.dart:17:62: Error: No named parameter with the name 'cancelToken'.
    final res = await api.get<List<dynamic>>('/v2/products', cancelToken: cancel);
                                                             ^^^^^^^^^^^
00:04 +0 -1: loading /Users/jonas/dev/lager-app/test/features/products/product_list_test.dart [E]
  Failed to load "/Users/jonas/dev/lager-app/test/features/products/product_list_test.dart": Compilation failed for testPath=/Users/jonas/dev/lager-app/test/features/products/product_list_test.dart
00:04 +0 -1: Some tests failed.''', desc="Artikellisten-Tests", secs=19)
    s.call(s.read_call("test/fakes/fake_api_client.dart", '''class FakeApiClient implements ApiClient {
  FakeApiClient({this.products = const [], this.delay = Duration.zero});

  final List<Product> products;
  final Duration delay;
  final calls = <String>[];

  @override
  Future<Response<T>> get<T>(String path) async {
    calls.add(path);
    await Future<void>.delayed(delay);
    return Response(requestOptions: RequestOptions(path: path), data: products.map((p) => p.toJson()).toList() as T);
  }
}
'''))
    s.say(
        "Der Fake im Test kennt `cancelToken` noch nicht (die Bestellliste hat offenbar keinen "
        "Test, der ihn braucht). Ich ergänze den Parameter im Fake und lasse ihn das Abbrechen "
        "wie Dio melden:"
    )
    s.edit("test/fakes/fake_api_client.dart", '''  Future<Response<T>> get<T>(String path) async {
    calls.add(path);
    await Future<void>.delayed(delay);''', '''  Future<Response<T>> get<T>(String path, {CancelToken? cancelToken}) async {
    calls.add(path);
    await Future<void>.delayed(delay);
    if (cancelToken?.isCancelled ?? false) {
      throw DioException.requestCancelled(requestOptions: RequestOptions(path: path), reason: 'disposed');
    }''')
    s.bash("dart run build_runner build --delete-conflicting-outputs 2>&1 | tail -3", '''[INFO] Running build completed, took 6.1s
[INFO] Caching finalized dependency graph completed, took 118ms
[INFO] Succeeded after 6.3s with 2 outputs (14 actions)''', desc="Code generieren", secs=14)
    s.bash("flutter test test/features/products/product_list_test.dart", '''00:03 +0: loading /Users/jonas/dev/lager-app/test/features/products/product_list_test.dart
00:04 +1: pull-to-refresh fetches once
00:04 +2: no state write after dispose
00:04 +2: All tests passed!''', desc="Artikellisten-Tests", secs=12)
    s.bash("flutter analyze", '''Analyzing lager-app...
No issues found! (ran in 4.7s)''', desc="Analyzer", secs=9)
    s.bash("flutter test 2>&1 | tail -2", '''00:21 +148: All tests passed!''', desc="Alle Tests", secs=30)
    s.say(
        "Erledigt:\n- Pull-to-Refresh: nur noch `ref.refresh(productListProvider.future)`, ein "
        "GET statt zwei; die eigene `refresh()`-Methode ist weg.\n"
        "- Crash nach schnellem Zurück: der Request hängt an einem `CancelToken`, das in "
        "`ref.onDispose` abgebrochen wird (wie in `OrderList`), kein `keepAlive`.\n"
        "- `FakeApiClient.get` kennt jetzt `cancelToken`.\n- `flutter analyze` sauber, 148 Tests grün.\n\n"
        "Beim Suchen gesehen: `supplier_list_screen.dart` hat denselben `invalidate` + "
        "`refresh()`-Doppelaufruf."
    )
    s.turn_end()
    s.user(
        "top danke. lieferanten mach ich nächste woche selber. was ich nicht weiß: soll bei "
        "refresh ohne netz ein snackbar kommen oder die alte liste einfach bleiben? muss ich lena "
        "fragen (ux)",
        wait=90,
    )
    s.say("Alles klar. Aktuell zeigt ein fehlgeschlagener Refresh den `ErrorView` statt der alten Liste — falls Lena die alte Liste behalten will, wäre das `products.when(skipError: true, …)` bzw. `valueOrNull` im Screen.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Flutter + Riverpod 2 with riverpod_generator, Dio, German with a terse user",
        "rule in the first prompt (Riverpod generator like the other features, no Bloc/Provider)",
        "a foreground `flutter run` interrupted, then a rule (don't start the app from here)",
        "keepAlive tried, refused by the user with a reason (stale data of the previous tenant), reverted",
        "CancelToken in onDispose copied from the orders feature with its why before a Write",
        "compile error in a test fake (cancelToken), then passing tests, analyze, build_runner",
        "todo the user takes (supplier screen next week) and an open question for a colleague (Lena, UX)",
    ],
    "language": "de",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["riverpod_generator", "Riverpod"], ["Bloc"]],
         "note": "State management is Riverpod 2 with riverpod_generator like the other features, no Bloc/Provider."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["flutter run"], ["Gerät", "Emulator", "blockiert"]],
         "note": "Kein flutter run aus der Session: blockiert ewig, Jonas testet selbst am Gerät."},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "constraint", "preference"],
         "match": [["keepAlive"], ["Mandant"]],
         "note": "keepAlive auf der Artikelliste verworfen: nach Logout/Login mit anderem Mandanten stünden die Artikel des alten Mandanten drin."},
        {"id": "b1", "type": "bug_note",
         "match": [["invalidate"], ["doppelt", "zwei", "refresh"]],
         "note": "Pull-to-Refresh lud doppelt: onRefresh rief ref.invalidate und danach noch refresh(); jetzt nur ref.refresh(productListProvider.future)."},
        {"id": "d1", "type": "decision", "types": ["decision", "bug_note"],
         "match": [["CancelToken"], ["onDispose", "dispose"]],
         "note": "Der Request der Artikelliste hängt an einem CancelToken, das in ref.onDispose abgebrochen wird (wie OrderList), damit nach dispose niemand mehr in state schreibt."},
        {"id": "b2", "type": "bug_note", "required": False,
         "match": [["FakeApiClient", "fake_api_client"], ["cancelToken"]],
         "note": "FakeApiClient.get kannte cancelToken nicht (Compile-Fehler im Test); Parameter ergänzt."},
        {"id": "t1", "type": "todo",
         "match": [["supplier", "Lieferanten"], ["nächste woche", "refresh", "invalidate"]],
         "note": "supplier_list_screen.dart hat denselben invalidate+refresh-Doppelaufruf; Jonas macht ihn nächste Woche."},
        {"id": "q1", "type": "open_question",
         "match": [["Lena"], ["snackbar", "netz", "alte liste"]],
         "note": "Refresh ohne Netz: Snackbar oder alte Liste behalten? Lena (UX) fragen."},
        {"id": "v1", "type": "verified_command", "command": "flutter test test/features/products/product_list_test.dart"},
        {"id": "v2", "type": "verified_command", "command": "flutter analyze"},
        {"id": "v3", "type": "verified_command", "command": "flutter test"},
        {"id": "v4", "type": "verified_command", "required": False, "command": "dart run build_runner build --delete-conflicting-outputs"},
    ],
    "secrets": [],
    "forbidden": [["Request interrupted"], ["doesn't want to proceed"]],
}
