# ruff: noqa: E501  (verbatim command output and file contents)
"""Vue 3 orders table: virtualising 10k rows without a library; a CSS-only try is reverted (French)."""

from make_sessions import Session

TABLE = '''<script setup lang="ts">
import type { Order } from "@/types";
import OrderRow from "./OrderRow.vue";

defineProps<{ orders: Order[] }>();
</script>

<template>
  <div class="orders-table">
    <div class="orders-table__head">
      <span>N°</span><span>Client</span><span>Date</span><span>Montant</span><span>Statut</span>
    </div>
    <div class="orders-table__body">
      <OrderRow v-for="o in orders" :key="o.id" :order="o" />
    </div>
  </div>
</template>

<style scoped>
.orders-table__body {
  max-height: 70vh;
  overflow-y: auto;
}
</style>
'''

COMPOSABLE = '''import { computed, onBeforeUnmount, onMounted, ref, type Ref } from "vue";

/**
 * Windowed rendering for lists whose rows all have the same height.
 * Only the visible rows (plus `overscan` above and below) are mounted.
 */
export function useVirtualRows<T>(items: Ref<T[]>, rowHeight: number, overscan = 8) {
  const viewport = ref<HTMLElement | null>(null);
  const scrollTop = ref(0);
  const height = ref(0);

  const start = computed(() => Math.max(0, Math.floor(scrollTop.value / rowHeight) - overscan));
  const end = computed(() =>
    Math.min(items.value.length, Math.ceil((scrollTop.value + height.value) / rowHeight) + overscan),
  );
  const visible = computed(() => items.value.slice(start.value, end.value));
  const padTop = computed(() => start.value * rowHeight);
  const totalHeight = computed(() => items.value.length * rowHeight);

  function onScroll() {
    scrollTop.value = viewport.value?.scrollTop ?? 0;
  }

  let observer: ResizeObserver | undefined;
  onMounted(() => {
    observer = new ResizeObserver(([entry]) => (height.value = entry.contentRect.height));
    if (viewport.value) observer.observe(viewport.value);
  });
  onBeforeUnmount(() => observer?.disconnect());

  return { viewport, visible, padTop, totalHeight, onScroll, start };
}
'''


def build() -> Session:
    s = Session("vue-virtual-table-fr", cwd="/Users/claire/dev/backoffice", branch="perf/table-commandes",
                start="2026-03-19T08:40:51.009Z", version="2.1.50", model="claude-sonnet-4-6",
                slug="gentle-scrolling-marten")
    s.user(
        "Le tableau des commandes (src/components/OrdersTable.vue) rame dès qu'on affiche plus de "
        "5 000 lignes, et certains clients en ont 10 000. Tu peux regarder ?\n\n"
        "Deux choses : on préfère écrire nos propres composables plutôt que d'ajouter une lib "
        "si ça tient en une centaine de lignes. Et écris les commentaires de code en anglais, "
        "même si on se parle en français.",
        wait=4,
    )
    s.read("src/components/OrdersTable.vue", TABLE)
    s.grep("height", content="src/components/OrderRow.vue:41:  height: var(--row-height); /* 36px, design system */\nsrc/styles/tokens.css:18:  --row-height: 36px;",
           path="src")
    s.say(
        "Le tableau monte un `OrderRow` par commande : à 10 000 lignes, c'est 10 000 composants "
        "et ~60 000 nœuds DOM, d'où la lenteur au premier rendu et au défilement.\n\n"
        "Essai le moins invasif d'abord : `content-visibility: auto` sur les lignes. Le "
        "navigateur saute le rendu des lignes hors écran, sans toucher au JavaScript."
    )
    s.edit("src/components/OrdersTable.vue", '''.orders-table__body {
  max-height: 70vh;
  overflow-y: auto;
}''', '''.orders-table__body {
  max-height: 70vh;
  overflow-y: auto;
}
.orders-table__body > :deep(.order-row) {
  /* Skip layout/paint of off-screen rows. */
  content-visibility: auto;
  contain-intrinsic-size: auto 36px;
}''')
    s.say("Tu peux tester avec le compte démo qui a 10 000 commandes ?")
    s.turn_end()
    s.user(
        "C'est plus fluide au défilement, mais le premier affichage met toujours 3 secondes, et "
        "la barre de défilement saute quand on descend vite. Pas terrible.",
        wait=200,
    )
    s.say(
        "Logique : `content-visibility` économise le rendu, mais les 10 000 composants Vue sont "
        "toujours créés (les 3 secondes), et les tailles estimées se corrigent en cours de route "
        "(la barre qui saute). J'annule ce CSS.\n\n"
        "La vraie solution est de ne monter que les lignes visibles. Comme toutes les lignes ont "
        "la même hauteur — 36px, fixée par le design system (`--row-height`) — une fenêtre "
        "calculée à partir de `scrollTop` suffit : pas besoin de mesurer chaque ligne, et ça "
        "tient dans un petit composable, sans nouvelle dépendance."
    )
    s.edit("src/components/OrdersTable.vue", '''
.orders-table__body > :deep(.order-row) {
  /* Skip layout/paint of off-screen rows. */
  content-visibility: auto;
  contain-intrinsic-size: auto 36px;
}''', "")
    s.write("src/composables/useVirtualRows.ts", COMPOSABLE)
    s.edit("src/components/OrdersTable.vue", '''<script setup lang="ts">
import type { Order } from "@/types";
import OrderRow from "./OrderRow.vue";

defineProps<{ orders: Order[] }>();
</script>''', '''<script setup lang="ts">
import { toRef } from "vue";
import { useVirtualRows } from "@/composables/useVirtualRows";
import type { Order } from "@/types";
import OrderRow from "./OrderRow.vue";

const props = defineProps<{ orders: Order[] }>();

// Must match --row-height in tokens.css: the window is computed, not measured.
const ROW_HEIGHT = 36;
const { viewport, visible, padTop, totalHeight, onScroll } = useVirtualRows(toRef(props, "orders"), ROW_HEIGHT);
</script>''')
    s.edit("src/components/OrdersTable.vue", '''    <div class="orders-table__body">
      <OrderRow v-for="o in orders" :key="o.id" :order="o" />
    </div>''', '''    <div ref="viewport" class="orders-table__body" @scroll.passive="onScroll">
      <div :style="{ height: `${totalHeight}px`, paddingTop: `${padTop}px`, boxSizing: 'border-box' }">
        <OrderRow v-for="o in visible" :key="o.id" :order="o" />
      </div>
    </div>''')
    s.write("src/composables/useVirtualRows.test.ts", '''import { mount } from "@vue/test-utils";
import { defineComponent, h, ref } from "vue";
import { describe, expect, it } from "vitest";
import { useVirtualRows } from "./useVirtualRows";

describe("useVirtualRows", () => {
  it("mounts only the rows in view plus overscan", async () => {
    const items = ref(Array.from({ length: 10_000 }, (_, i) => i));
    let api!: ReturnType<typeof useVirtualRows<number>>;
    mount(defineComponent({ setup() { api = useVirtualRows(items, 36, 8); return () => h("div"); } }));

    api.viewport.value = { scrollTop: 36 * 500, clientHeight: 360 } as HTMLElement;
    api.onScroll();

    expect(api.start.value).toBe(492);
    expect(api.totalHeight.value).toBe(360_000);
  });
});
''')
    s.bash("pnpm vitest run src/composables", """\

 FAIL  src/composables/useVirtualRows.test.ts > useVirtualRows > mounts only the rows in view plus overscan
ReferenceError: ResizeObserver is not defined
 ❯ src/composables/useVirtualRows.ts:29:5
     27|   let observer: ResizeObserver | undefined;
     28|   onMounted(() => {
     29|     observer = new ResizeObserver(([entry]) => (height.value = entry.contentRect.height));
       |     ^

 Test Files  1 failed (1)
      Tests  1 failed (1)""", code=1, desc="Tests du composable", secs=5.0)
    s.say(
        "jsdom n'implémente pas `ResizeObserver`. Plutôt que de le simuler dans chaque test, le "
        "composable s'en passe quand il n'existe pas (SSR, vieux navigateurs, jsdom) et retombe "
        "sur `clientHeight` lu au montage — la hauteur du tableau change rarement."
    )
    s.edit("src/composables/useVirtualRows.ts", '''  onMounted(() => {
    observer = new ResizeObserver(([entry]) => (height.value = entry.contentRect.height));
    if (viewport.value) observer.observe(viewport.value);
  });''', '''  onMounted(() => {
    height.value = viewport.value?.clientHeight ?? 0;
    // ResizeObserver is missing in jsdom and during SSR; the initial height is enough there.
    if (typeof ResizeObserver === "undefined" || !viewport.value) return;
    observer = new ResizeObserver(([entry]) => (height.value = entry.contentRect.height));
    observer.observe(viewport.value);
  });''')
    s.bash("pnpm vitest run src/composables 2>&1 | tail -15", """\

 ✓ src/composables/useVirtualRows.test.ts (1 test) 14ms

 Test Files  1 passed (1)
      Tests  1 passed (1)""", desc="Tests du composable", secs=4.0)
    s.bash("pnpm vue-tsc --noEmit && pnpm build && pnpm vitest run 2>&1 | tail -4", """\

> backoffice@3.8.0 build /Users/claire/dev/backoffice
> vite build

vite v6.2.1 building for production...
✓ 1184 modules transformed.
dist/index.html                   0.62 kB │ gzip:   0.38 kB
dist/assets/index-B3f9sLq2.css   48.17 kB │ gzip:   9.02 kB
dist/assets/index-C7kq3VxL.js   412.08 kB │ gzip: 131.77 kB
✓ built in 6.41s

 Test Files  23 passed (23)
      Tests  148 passed (148)""", desc="Types, build, tests", secs=35.0)
    s.say(
        "C'est fait :\n\n"
        "- `src/composables/useVirtualRows.ts` (~40 lignes, commentaires en anglais) : ne monte "
        "que les lignes visibles + 8 de marge, à partir de `scrollTop` et d'une hauteur fixe de "
        "36px. Aucune dépendance ajoutée.\n"
        "- `OrdersTable.vue` l'utilise ; l'essai `content-visibility` est retiré.\n"
        "- Types, 148 tests et build OK.\n\n"
        "Une limite à garder en tête : tout repose sur la hauteur fixe de 36px. Si une ligne "
        "devient un jour dépliable (le détail de commande dont parlait le ticket UX-214), la "
        "fenêtre sera fausse et il faudra mesurer les lignes. Je ne sais pas si c'est prévu — "
        "à voir avec le design avant d'aller plus loin."
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "French user and replies",
        "preferences (own composables over libraries; code comments in English)",
        "CSS content-visibility attempt reverted after the user tried it",
        "decision with its why (fixed row height)",
        "ResizeObserver missing in jsdom (exit 1) then pass",
        "open question at the end",
    ],
    "language": "fr",
    "empty": False,
    "items": [
        {"id": "p1", "type": "preference", "types": ["preference", "constraint"],
         "match": [["composable"], ["lib", "dépendance"]],
         "note": "On préfère écrire nos propres composables plutôt qu'ajouter une lib si ça tient "
                 "en une centaine de lignes."},
        {"id": "p2", "type": "preference", "types": ["preference", "constraint"],
         "match": [["commentaires"], ["anglais"]],
         "note": "Les commentaires de code sont en anglais, même si on se parle en français."},
        {"id": "f1", "type": "failed_attempt",
         "match": [["content-visibility"], ["barre de défilement", "saute", "3 secondes"]],
         "note": "content-visibility: auto sur les lignes : premier affichage toujours à 3 s et "
                 "barre de défilement qui saute ; retiré."},
        {"id": "d1", "type": "decision",
         "match": [["useVirtualRows", "visibles"], ["36px", "hauteur fixe", "même hauteur"]],
         "note": "Le tableau ne monte que les lignes visibles (useVirtualRows), calculées à partir "
                 "de scrollTop, parce que toutes les lignes font 36px (design system)."},
        {"id": "b1", "type": "bug_note",
         "match": [["ResizeObserver"], ["jsdom", "clientHeight"]],
         "note": "ResizeObserver n'existe pas dans jsdom (ni en SSR) : le composable retombe sur "
                 "clientHeight au montage."},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo"],
         "match": [["dépliable", "UX-214"], ["hauteur"]],
         "note": "Si une ligne devient dépliable (UX-214), la hauteur fixe ne tient plus ; à voir "
                 "avec le design."},
        {"id": "v1", "type": "verified_command", "command": "pnpm vitest run src/composables"},
        {"id": "v2", "type": "verified_command",
         "command": "pnpm vue-tsc --noEmit && pnpm build && pnpm vitest run"},
    ],
    "secrets": [],
    "forbidden": [],
}
