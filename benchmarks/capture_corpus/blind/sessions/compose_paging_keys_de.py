# ruff: noqa: E501  (verbatim command output and file contents)
"""Jetpack Compose + Paging 3: a user who mostly pastes crashes and says 'geht immer noch nicht' (German)."""

from make_sessions import Session

CRASH = '''FATAL EXCEPTION: main
Process: de.lieferbar.app.debug, PID: 18233
java.lang.IllegalArgumentException: Key "ord_1042" was already used. If you are using LazyColumn/Row please make sure you provide a unique key for each item.
	at androidx.compose.foundation.lazy.layout.LazyLayoutItemProviderKt.checkKeys(LazyLayoutItemProvider.kt:163)
	at androidx.compose.foundation.lazy.LazyListMeasureKt.measureLazyList-5IMabDg(LazyListMeasure.kt:181)
	at androidx.compose.foundation.lazy.LazyListKt$rememberLazyListMeasurePolicy$1$1.invoke-0kLqBqw(LazyList.kt:330)'''

SOURCE_V1 = '''package de.lieferbar.feature.orders.data

import androidx.paging.PagingSource
import androidx.paging.PagingState
import de.lieferbar.core.network.OrdersApi

class OrdersPagingSource(private val api: OrdersApi) : PagingSource<Int, OrderDto>() {

    override suspend fun load(params: LoadParams<Int>): LoadResult<Int, OrderDto> {
        val page = params.key ?: 0
        return try {
            val orders = api.orders(offset = page * PAGE_SIZE, limit = params.loadSize)
            LoadResult.Page(
                data = orders,
                prevKey = if (page == 0) null else page - 1,
                nextKey = if (orders.isEmpty()) null else page + 1,
            )
        } catch (e: Exception) {
            LoadResult.Error(e)
        }
    }

    override fun getRefreshKey(state: PagingState<Int, OrderDto>): Int? =
        state.anchorPosition?.let { state.closestPageToPosition(it)?.prevKey?.plus(1) }

    companion object {
        const val PAGE_SIZE = 20
    }
}
'''

SCREEN = '''@Composable
fun OrdersList(orders: LazyPagingItems<OrderUi>, onOpen: (String) -> Unit) {
    LazyColumn {
        items(count = orders.itemCount, key = orders.itemKey { it.id }) { index ->
            orders[index]?.let { OrderRow(it, onClick = { onOpen(it.id) }) }
        }
    }
}
'''

REPO = '''class OrdersRepository(private val api: OrdersApi) {
    fun orders(): Flow<PagingData<OrderDto>> =
        Pager(PagingConfig(pageSize = OrdersPagingSource.PAGE_SIZE)) { OrdersPagingSource(api) }.flow
}
'''

TEST = '''package de.lieferbar.feature.orders.data

import androidx.paging.PagingSource
import androidx.paging.testing.TestPager
import androidx.paging.PagingConfig
import kotlinx.coroutines.test.runTest
import org.junit.Assert.assertEquals
import org.junit.Test

class OrdersPagingSourceTest {
    private val api = FakeOrdersApi(total = 95)
    private val config = PagingConfig(pageSize = 20)

    @Test
    fun `no order appears twice across pages`() = runTest {
        val pager = TestPager(config, OrdersPagingSource(api))
        pager.refresh()
        pager.append()
        pager.append()
        val ids = pager.getPages().flatMap { it.data }.map { it.id }
        assertEquals(ids.distinct(), ids)
    }
}
'''


def build() -> Session:
    s = Session("compose-paging-keys-de", cwd="/home/lea/AndroidStudioProjects/lieferbar-android", branch="bugfix/LB-1931-orders-crash",
                start="2026-03-10T14:30:51.660Z", version="2.1.56", slug="duplicate-key-badger")
    s.user(f"bestellliste crasht beim scrollen, so ab der 2. seite\n\n{CRASH}", wait=3)
    s.call(s.read_call("feature/orders/src/main/java/de/lieferbar/feature/orders/data/OrdersPagingSource.kt", SOURCE_V1),
           s.read_call("feature/orders/src/main/java/de/lieferbar/feature/orders/ui/OrdersList.kt", SCREEN))
    s.say(
        "Die `LazyColumn` benutzt `it.id` als Key, und eine Bestellung kommt zweimal vor. Ich vermute, "
        "die API liefert innerhalb einer Seite Duplikate (z. B. bei Bestellungen mit mehreren "
        "Lieferungen). Ich filtere pro Seite:"
    )
    s.edit("feature/orders/src/main/java/de/lieferbar/feature/orders/data/OrdersPagingSource.kt",
           "            val orders = api.orders(offset = page * PAGE_SIZE, limit = params.loadSize)",
           "            val orders = api.orders(offset = page * PAGE_SIZE, limit = params.loadSize).distinctBy { it.id }")
    s.bash("./gradlew :feature:orders:compileDebugKotlin -q", "", desc="Kompilieren", secs=48)
    s.say("Kompiliert. Kannst du es nochmal auf dem Gerät probieren?")
    s.turn_end()
    s.user(f"geht immer noch nicht\n\n{CRASH.replace('ord_1042', 'ord_1039')}", wait=180)
    s.say(
        "Dann sind es keine Duplikate innerhalb einer Seite, sondern über Seitengrenzen hinweg. Zum "
        "Eingrenzen nehme ich den Key testweise raus — wenn der Crash weg ist und Einträge doppelt "
        "erscheinen, wissen wir, dass die Seiten sich überlappen."
    )
    s.edit("feature/orders/src/main/java/de/lieferbar/feature/orders/ui/OrdersList.kt",
           "        items(count = orders.itemCount, key = orders.itemKey { it.id }) { index ->",
           "        items(count = orders.itemCount) { index ->")
    s.bash("./gradlew :feature:orders:compileDebugKotlin -q", "", desc="Kompilieren", secs=40)
    s.turn_end()
    s.user("crasht nicht mehr aber jetzt sind bestellungen doppelt drin und die liste springt beim zurückscrollen. so können wir das nicht mergen", wait=240)
    s.say("Klar, das war nur zum Eingrenzen. Key kommt zurück, und mein `distinctBy` von vorhin nehme ich auch wieder raus — es hat nichts bewirkt.")
    s.edit("feature/orders/src/main/java/de/lieferbar/feature/orders/ui/OrdersList.kt",
           "        items(count = orders.itemCount) { index ->",
           "        items(count = orders.itemCount, key = orders.itemKey { it.id }) { index ->")
    s.edit("feature/orders/src/main/java/de/lieferbar/feature/orders/data/OrdersPagingSource.kt",
           "            val orders = api.orders(offset = page * PAGE_SIZE, limit = params.loadSize).distinctBy { it.id }",
           "            val orders = api.orders(offset = page * PAGE_SIZE, limit = params.loadSize)")
    s.read("feature/orders/src/main/java/de/lieferbar/feature/orders/data/OrdersRepository.kt", REPO)
    s.say(
        "Gefunden, glaube ich. Erst ein Test, der es zeigt — `paging-testing` ist schon im "
        "Version-Catalog, also keine neue Abhängigkeit:"
    )
    s.bash("grep -n paging gradle/libs.versions.toml", '''14:paging = "3.2.1"
52:paging-runtime = { module = "androidx.paging:paging-runtime", version.ref = "paging" }
53:paging-compose = { module = "androidx.paging:paging-compose", version.ref = "paging" }
54:paging-testing = { module = "androidx.paging:paging-testing", version.ref = "paging" }''', desc="Paging im Catalog")
    s.write("feature/orders/src/test/java/de/lieferbar/feature/orders/data/OrdersPagingSourceTest.kt", TEST)
    s.bash("./gradlew :feature:orders:testDebugUnitTest --tests '*OrdersPagingSourceTest' 2>&1 | tail -12", '''> Task :feature:orders:testDebugUnitTest

OrdersPagingSourceTest > no order appears twice across pages FAILED
    java.lang.AssertionError at OrdersPagingSourceTest.kt:22
        expected:<[ord_0000, ord_0001, …, ord_0099]> but was:<[ord_0000, ord_0001, …, ord_0059, ord_0020, ord_0021, …]>

1 test completed, 1 failed

BUILD SUCCESSFUL in 21s
31 actionable tasks: 4 executed, 27 up-to-date''', desc="Test für Seitenüberlappung", secs=30)
    s.say(
        "Der Test zeigt es: nach `ord_0059` kommt wieder `ord_0020`. (Trotz `BUILD SUCCESSFUL` "
        "unten — das Modul hat `ignoreFailures = true` für Unit-Tests, der Test ist trotzdem rot.) "
        "Ich stelle die Keys auf Offsets um:"
    )
    s.write("feature/orders/src/main/java/de/lieferbar/feature/orders/data/OrdersPagingSource.kt", SOURCE_V1.replace(
        '''        val page = params.key ?: 0
        return try {
            val orders = api.orders(offset = page * PAGE_SIZE, limit = params.loadSize)
            LoadResult.Page(
                data = orders,
                prevKey = if (page == 0) null else page - 1,
                nextKey = if (orders.isEmpty()) null else page + 1,
            )''', '''        // Key = Offset, nicht Seitennummer: die erste Ladung ist initialLoadSize (3 × pageSize) groß.
        val offset = params.key ?: 0
        return try {
            val orders = api.orders(offset = offset, limit = params.loadSize)
            LoadResult.Page(
                data = orders,
                prevKey = if (offset == 0) null else maxOf(0, offset - params.loadSize),
                nextKey = if (orders.size < params.loadSize) null else offset + orders.size,
            )''').replace('''        state.anchorPosition?.let { state.closestPageToPosition(it)?.prevKey?.plus(1) }''', '''        if (state.anchorPosition == null) null else maxOf(0, state.anchorPosition!! - state.config.initialLoadSize / 2)'''))
    s.bash("./gradlew :feature:orders:testDebugUnitTest --tests '*OrdersPagingSourceTest'", '''> Task :feature:orders:testDebugUnitTest

OrdersPagingSourceTest > no order appears twice across pages PASSED

BUILD SUCCESSFUL in 18s
31 actionable tasks: 3 executed, 28 up-to-date''', desc="Test nochmal", secs=28)
    s.say("Grün. Bitte nochmal auf dem Gerät.")
    s.turn_end()
    s.user("scrollen geht jetzt 👍 aber detekt ist im CI rot:\n\nOrdersPagingSource.kt:31:67: Use of non-null assertion operator (!!) [UnsafeCallOnNullableType]\n\nbei uns kein !! im code, das weißt du jetzt", wait=300)
    s.bash("./gradlew detekt 2>&1 | tail -5", '''feature/orders/src/main/java/de/lieferbar/feature/orders/data/OrdersPagingSource.kt:31:67: Use of non-null assertion operator (!!) [UnsafeCallOnNullableType]

detekt found 1 weighted issue.

BUILD FAILED in 9s''', desc="detekt lokal", secs=14)
    s.edit("feature/orders/src/main/java/de/lieferbar/feature/orders/data/OrdersPagingSource.kt",
           "        if (state.anchorPosition == null) null else maxOf(0, state.anchorPosition!! - state.config.initialLoadSize / 2)",
           "        state.anchorPosition?.let { anchor -> maxOf(0, anchor - state.config.initialLoadSize / 2) }")
    s.bash("./gradlew detekt :feature:orders:testDebugUnitTest", '''BUILD SUCCESSFUL in 27s
44 actionable tasks: 6 executed, 38 up-to-date''', desc="detekt + Tests", secs=34)
    s.say(
        "Mein Fehler, das `!!` stand in meinem neuen `getRefreshKey` — jetzt mit `?.let`, detekt "
        "und alle Tests des Moduls grün.\n\n"
        "**Ursache:** Paging lädt beim ersten Mal `initialLoadSize`, standardmäßig 3 × `pageSize` = "
        "60 Einträge. Die alte `PagingSource` zählte aber Seitennummern und rechnete "
        "`offset = page * 20`, also holte die nächste Ladung (page 1) Offset 20 — die Einträge 20–59 "
        "waren schon da. Daher die doppelten IDs genau ab der zweiten Ladung. Jetzt ist der Key der "
        "Offset selbst (`offset + orders.size`), dann ist die Größe der ersten Ladung egal.\n\n"
        "Nebenbei: ich hatte auch kurz paging 3.3.2 probiert, weil der Changelog was zu Keys erwähnt — "
        "keine Änderung, wieder auf 3.2.1 zurück (ist nicht im Diff)."
    )
    s.turn_end()
    s.user(
        "top. cursor paging wär schöner aber die v1 api kann nur offset, also passt das so. "
        "die suche (SearchPagingSource) hat glaub ich den gleichen bug, mach ich nächste woche. "
        "keine ahnung ob das backend die sortierung stabil hält wenn während dem scrollen neue bestellungen reinkommen, dann verschiebt sich offset ja auch",
        wait=120,
    )
    s.say(
        "Ja — wenn neue Bestellungen vorne einsortiert werden, rutscht alles um eins nach hinten und "
        "eine Bestellung käme wieder doppelt. Ob das Backend stabil sortiert, kann ich von hier aus "
        "nicht sehen; das müsste jemand vom Backend beantworten."
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Android Jetpack Compose + Paging 3 (paging-testing TestPager, Gradle, detekt), German, a terse user who pastes crashes",
        "two wrong fixes reported by the user ('geht immer noch nicht', then list jumping), both reverted",
        "a failed attempt told only in the wrap-up text (paging 3.3.2 bump, no change)",
        "a unit test failing under BUILD SUCCESSFUL behind `| tail` (ignoreFailures), then passing",
        "a rule stated after a CI failure ('kein !! im code'), detekt failing behind `| tail`, then green",
        "the cause explained in a paragraph after the fix; decision's why given by the user (v1 API has only offset); todo 'nächste Woche'; open question 'keine Ahnung ob …'",
    ],
    "language": "de",
    "empty": False,
    "items": [
        {"id": "b1", "type": "bug_note",
         "match": [["already used", "doppelt", "Duplikat"], ["initialLoadSize", "3 × pageSize", "60"], ["offset"]],
         "note": "Bestellliste crashte (Key already used): initialLoadSize ist 3 × pageSize, die PagingSource rechnete offset = page * 20, Seiten überlappten."},
        {"id": "d1", "type": "decision",
         "match": [["offset"], ["Key"], ["v1 api", "cursor"]],
         "note": "Der PagingSource-Key ist jetzt der Offset (offset + orders.size); Cursor-Paging wäre schöner, aber die v1-API kann nur Offset."},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "bug_note"],
         "match": [["distinctBy"]],
         "note": "distinctBy pro Seite half nicht: die Duplikate kamen über Seitengrenzen hinweg."},
        {"id": "f2", "type": "failed_attempt", "types": ["failed_attempt", "bug_note"],
         "match": [["Key"], ["springt", "doppelt"]],
         "note": "Key aus der LazyColumn nehmen verhinderte den Crash, aber Bestellungen waren doppelt und die Liste sprang: zurückgenommen."},
        {"id": "f3", "type": "failed_attempt", "required": False,
         "match": [["3.3.2"], ["keine Änderung"]],
         "note": "paging 3.3.2 ausprobiert, keine Änderung, zurück auf 3.2.1."},
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["!!"], ["detekt"]],
         "note": "Kein !! im Code, detekt (UnsafeCallOnNullableType) schlägt im CI an."},
        {"id": "x1", "type": "project_fact", "types": ["project_fact", "bug_note"], "required": False,
         "match": [["ignoreFailures"], ["BUILD SUCCESSFUL"]],
         "note": "Im Orders-Modul ist ignoreFailures = true: rote Unit-Tests enden trotzdem mit BUILD SUCCESSFUL."},
        {"id": "t1", "type": "todo",
         "match": [["SearchPagingSource", "suche"], ["nächste woche", "gleichen bug"]],
         "note": "SearchPagingSource hat vermutlich denselben Offset-Bug; Lea macht es nächste Woche."},
        {"id": "q1", "type": "open_question",
         "match": [["sortierung"], ["neue bestellungen", "backend"]],
         "note": "Hält das Backend die Sortierung stabil, wenn während des Scrollens neue Bestellungen reinkommen? Sonst verschiebt sich der Offset."},
        {"id": "v1", "type": "verified_command", "command": "./gradlew :feature:orders:testDebugUnitTest --tests '*OrdersPagingSourceTest'"},
        {"id": "v2", "type": "verified_command", "command": "./gradlew detekt :feature:orders:testDebugUnitTest"},
        {"id": "v3", "type": "verified_command", "command": "./gradlew :feature:orders:compileDebugKotlin -q", "required": False},
    ],
    "secrets": [],
    "forbidden": [],
}
