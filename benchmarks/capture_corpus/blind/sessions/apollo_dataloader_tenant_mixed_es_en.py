# ruff: noqa: E501  (verbatim command output and file contents)
"""Apollo Server 4 + DataLoader: a module-level product loader leaks products across tenants; clearAll per request tried and fails under concurrency; per-request loaders in the context; dependency bump rejected (Spanish mixed with English)."""

from make_sessions import Session

LOADERS_TS = '''import DataLoader from "dataloader";
import { productsBySku, type Product } from "./repo/products";

// perf: N+1 en Order.items.product (ver PR #412)
let productLoader: DataLoader<string, Product | null> | undefined;

export function getProductLoader(tenantId: string) {
  if (!productLoader) {
    productLoader = new DataLoader(async (skus: readonly string[]) => {
      const rows = await productsBySku(tenantId, skus);
      const bySku = new Map(rows.map((p) => [p.sku, p]));
      return skus.map((s) => bySku.get(s) ?? null);
    });
  }
  return productLoader;
}
'''

RESOLVERS_TS = '''import type { Resolvers } from "./generated/graphql";
import { getProductLoader } from "./loaders";

export const resolvers: Resolvers = {
  OrderItem: {
    product: (item, _args, ctx) => getProductLoader(ctx.tenantId).load(item.sku),
  },
};
'''

SERVER_TS = '''import { ApolloServer } from "@apollo/server";
import { startStandaloneServer } from "@apollo/server/standalone";
import { typeDefs } from "./schema";
import { resolvers } from "./resolvers";
import { tenantFromRequest } from "./auth";

export type Context = { tenantId: string; userId: string };

const server = new ApolloServer<Context>({ typeDefs, resolvers });

const { url } = await startStandaloneServer(server, {
  context: async ({ req }) => {
    const { tenantId, userId } = await tenantFromRequest(req);
    return { tenantId, userId };
  },
  listen: { port: Number(process.env.PORT ?? 4000) },
});
console.log(`orders-graph ready at ${url}`);
'''


def build() -> Session:
    s = Session("apollo-dataloader-tenant-mixed-es-en", cwd="/Users/vale/work/orders-graph", branch="fix/tenant-leak-loader",
                start="2026-05-27T19:20:14.871Z", version="2.1.36", slug="per-request-dataloaders")
    s.user(
        "tenemos un bug feo en el GraphQL: un customer de un tenant vio en su order history el nombre de un product de OTRO tenant. "
        "happened twice this week, support lo escaló. Apollo Server 4, los loaders están en src/loaders.ts. check it out. "
        "y ojo, todo lo tenant-scoped sale del context, never from args",
        wait=5,
    )
    s.call(s.read_call("src/loaders.ts", LOADERS_TS), s.read_call("src/resolvers.ts", RESOLVERS_TS), s.read_call("src/server.ts", SERVER_TS))
    s.bash("git log --oneline -3 -- src/loaders.ts", '''b7e20d1 perf: dataloader for OrderItem.product (#412)
''', desc="Historia de loaders.ts")
    s.say(
        "Found it. `productLoader` es **module-level**: se crea una sola vez por proceso y vive para siempre. Dos problemas juntos:\n\n"
        "1. El `tenantId` queda capturado en el closure del **primer** request que lo crea. Todos los batches después consultan "
        "`productsBySku(<ese tenant>, …)`.\n"
        "2. DataLoader cachea por key, y la key es solo el `sku`. Los SKUs son por tenant (`SKU-1001` existe en varios), así que "
        "un tenant recibe el product cacheado de otro.\n\n"
        "Entró con #412 (fix del N+1). Primero un test que lo reproduzca."
    )
    s.write("src/__tests__/tenant-isolation.test.ts", '''import { executeAs, seedProduct, seedOrder } from "./helpers";

describe("tenant isolation in OrderItem.product", () => {
  beforeEach(async () => {
    await seedProduct("tenant-a", { sku: "SKU-1001", name: "Té verde 100g" });
    await seedProduct("tenant-b", { sku: "SKU-1001", name: "Cold brew 1L" });
    await seedOrder("tenant-a", "ord-a1", ["SKU-1001"]);
    await seedOrder("tenant-b", "ord-b1", ["SKU-1001"]);
  });

  const query = `query($id: ID!) { order(id: $id) { items { product { name } } } }`;

  it("sequential requests from two tenants", async () => {
    const a = await executeAs("tenant-a", query, { id: "ord-a1" });
    const b = await executeAs("tenant-b", query, { id: "ord-b1" });
    expect(a.order.items[0].product.name).toBe("Té verde 100g");
    expect(b.order.items[0].product.name).toBe("Cold brew 1L");
  });
});
''')
    s.bash("npx jest src/__tests__/tenant-isolation.test.ts", ''' FAIL  src/__tests__/tenant-isolation.test.ts
  tenant isolation in OrderItem.product
    ✕ sequential requests from two tenants (61 ms)

  ● tenant isolation in OrderItem.product › sequential requests from two tenants

    expect(received).toBe(expected) // Object.is equality

    Expected: "Cold brew 1L"
    Received: "Té verde 100g"

      16 |     const b = await executeAs("tenant-b", query, { id: "ord-b1" });
      17 |     expect(a.order.items[0].product.name).toBe("Té verde 100g");
    > 18 |     expect(b.order.items[0].product.name).toBe("Cold brew 1L");
         |                                           ^
      19 |   });
      20 | });

      at Object.<anonymous> (src/__tests__/tenant-isolation.test.ts:18:43)

Test Suites: 1 failed, 1 total
Tests:       1 failed, 1 total
Snapshots:   0 total
Time:        2.184 s
Ran all test suites matching /src\\/__tests__\\/tenant-isolation.test.ts/i.''', code=1, desc="Reproducir el leak", secs=9)
    s.say(
        "Reproducido: tenant-b ve \"Té verde 100g\" de tenant-a. Lo más chico que se me ocurre sin tocar la firma de los "
        "resolvers: limpiar el cache al final de cada request con un plugin de Apollo y crear el loader con el tenant actual."
    )
    s.edit("src/loaders.ts", '''export function getProductLoader(tenantId: string) {
  if (!productLoader) {''', '''export function resetLoaders() {
  productLoader = undefined;
}

export function getProductLoader(tenantId: string) {
  if (!productLoader) {''')
    s.edit("src/server.ts", '''const server = new ApolloServer<Context>({ typeDefs, resolvers });''', '''const server = new ApolloServer<Context>({
  typeDefs,
  resolvers,
  plugins: [{ async requestDidStart() { return { async willSendResponse() { resetLoaders(); } }; } }],
});''')
    s.edit("src/__tests__/tenant-isolation.test.ts", '''    expect(b.order.items[0].product.name).toBe("Cold brew 1L");
  });
});''', '''    expect(b.order.items[0].product.name).toBe("Cold brew 1L");
  });

  it("concurrent requests from two tenants", async () => {
    const [a, b] = await Promise.all([
      executeAs("tenant-a", query, { id: "ord-a1" }),
      executeAs("tenant-b", query, { id: "ord-b1" }),
    ]);
    expect(a.order.items[0].product.name).toBe("Té verde 100g");
    expect(b.order.items[0].product.name).toBe("Cold brew 1L");
  });
});''')
    s.bash("npx jest src/__tests__/tenant-isolation.test.ts", ''' FAIL  src/__tests__/tenant-isolation.test.ts
  tenant isolation in OrderItem.product
    ✓ sequential requests from two tenants (58 ms)
    ✕ concurrent requests from two tenants (22 ms)

  ● tenant isolation in OrderItem.product › concurrent requests from two tenants

    expect(received).toBe(expected) // Object.is equality

    Expected: "Cold brew 1L"
    Received: "Té verde 100g"

      29 |     ]);
      30 |     expect(a.order.items[0].product.name).toBe("Té verde 100g");
    > 31 |     expect(b.order.items[0].product.name).toBe("Cold brew 1L");
         |                                           ^
      32 |   });
      33 | });

      at Object.<anonymous> (src/__tests__/tenant-isolation.test.ts:31:43)

Test Suites: 1 failed, 1 total
Tests:       1 failed, 1 passed, 2 total
Snapshots:   0 total
Time:        2.231 s''', code=1, desc="Tests de aislamiento", secs=9)
    s.say(
        "El reset no alcanza: secuencial pasa, pero con dos requests **concurrentes** (lo normal en prod) ambos comparten el mismo "
        "loader mientras están vivos, y hasta se meten en el mismo batch. Mientras el loader sea global, va a haber leak. "
        "Revierto esto.\n\n"
        "Dos opciones de verdad:\n"
        "1. **Loaders por request**, creados en la función `context` (`ctx.loaders.product`). El cache vive lo que vive el "
        "request y el tenant sale del context. Es el patrón que recomienda DataLoader.\n"
        "2. Loader global con `cacheKeyFn: (k) => `${tenantId}:${sku}`` y el tenant en la key. Arregla el leak, pero queda un cache "
        "global que nunca se invalida: si alguien renombra un product o cambia el precio, el graph sirve el dato viejo hasta el "
        "restart, y la memoria crece con cada SKU de cada tenant.\n\n"
        "Voy con la 1, salvo que quieras otra cosa."
    )
    s.bash("git checkout -- src/loaders.ts src/server.ts && git status --short", '''?? src/__tests__/tenant-isolation.test.ts''', desc="Revertir el reset por request")
    s.turn_end()
    s.user(
        "sí, per request. el cache global nunca fue la idea, solo queríamos matar el N+1. stale prices would be a second incident lol",
        wait=45,
    )
    s.write("src/loaders.ts", '''import DataLoader from "dataloader";
import { productsBySku, type Product } from "./repo/products";

// Loaders POR REQUEST (se crean en context()): el cache y el tenantId viven solo durante un request.
// Un loader module-level filtraba products entre tenants (SKUs repetidos entre tenants, tenantId del primer request).
export function createLoaders(tenantId: string) {
  return {
    product: new DataLoader<string, Product | null>(async (skus) => {
      const rows = await productsBySku(tenantId, skus);
      const bySku = new Map(rows.map((p) => [p.sku, p]));
      return skus.map((s) => bySku.get(s) ?? null);
    }),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
''')
    s.edit("src/server.ts", '''export type Context = { tenantId: string; userId: string };''', '''export type Context = { tenantId: string; userId: string; loaders: Loaders };''')
    s.edit("src/server.ts", '''    const { tenantId, userId } = await tenantFromRequest(req);
    return { tenantId, userId };''', '''    const { tenantId, userId } = await tenantFromRequest(req);
    return { tenantId, userId, loaders: createLoaders(tenantId) };''')
    s.edit("src/server.ts", '''import { tenantFromRequest } from "./auth";''', '''import { tenantFromRequest } from "./auth";
import { createLoaders, type Loaders } from "./loaders";''')
    s.edit("src/resolvers.ts", '''import { getProductLoader } from "./loaders";
''', '')
    s.edit("src/resolvers.ts", '''    product: (item, _args, ctx) => getProductLoader(ctx.tenantId).load(item.sku),''', '''    product: (item, _args, ctx) => ctx.loaders.product.load(item.sku),''')
    s.grep("getProductLoader", [], path="src")
    s.bash("npx jest && npx tsc --noEmit", ''' PASS  src/__tests__/tenant-isolation.test.ts
 PASS  src/__tests__/orders.test.ts
 PASS  src/__tests__/n-plus-one.test.ts
 PASS  src/__tests__/auth.test.ts

Test Suites: 4 passed, 4 total
Tests:       19 passed, 19 total
Snapshots:   0 total
Time:        4.902 s
Ran all test suites.''', desc="Todos los tests + typecheck", secs=16)
    s.say(
        "Todo verde, incluido `n-plus-one.test.ts` (sigue siendo 1 query de products por request). Ya que estoy: `dataloader` está en "
        "2.1.0 y la 2.2 tiene `name` para debugging. Lo actualizo:"
    )
    s.bash_rejected("npm i dataloader@latest", desc="Actualizar dataloader",
                    reason="nope, no bumps en este PR. Renovate maneja las deps y el lockfile, si lo tocás a mano después hay conflicts en todos sus PRs")
    s.say("Ok, no toco dependencias.")
    s.bash("git add -A && git commit -qm 'fix: per-request DataLoaders (module-level product loader leaked products across tenants)' && git log --oneline -1",
           "4f0c8aa fix: per-request DataLoaders (module-level product loader leaked products across tenants)", desc="Commit")
    s.say(
        "Resumen:\n\n"
        "- **Causa:** `productLoader` module-level desde #412: cache compartido entre requests con key = sku (los SKUs se repiten "
        "entre tenants) y `tenantId` del primer request capturado en el closure.\n"
        "- **Probado y descartado:** resetear el loader al final de cada request — pasa secuencial, falla con requests "
        "concurrentes.\n"
        "- **Fix:** `createLoaders(tenantId)` en `context()`, resolvers usan `ctx.loaders.product`. No un cache global con "
        "`tenantId` en la key: nunca se invalidaría (precios/nombres viejos) y crece sin límite.\n"
        "- Tests de aislamiento secuencial + concurrente; `npx jest && npx tsc --noEmit` verde.\n\n"
        "No revisé: si hay otros loaders o caches module-level fuera de `src/loaders.ts` (busqué solo `getProductLoader`)."
    )
    s.turn_end()
    s.user(
        "great. mañana reviso los logs en Datadog para ver cuántos tenants got cross-tenant data desde el deploy de #412, Sofía de security tiene que saberlo. "
        "and no idea si el mobile BFF usa el mismo loaders.ts copiado, le pregunto a Diego",
        wait=85,
    )
    s.say("Perfecto. #412 se deployó el 19/05, así que ese es el rango a revisar.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Apollo Server 4 + DataLoader (jest, tsc), a user mixing Spanish and English",
        "a rule in the first prompt (tenant-scoped values come from the context, never from args)",
        "a module-level loader leaking products across tenants (cache keyed by sku, tenantId captured), reproduced by a test",
        "reset per request tried, fails with concurrent requests (error in the middle of the jest output), reverted",
        "decision per-request loaders in context() vs a global cache keyed by tenant (stale prices, memory), confirmed by the user",
        "`npm i dataloader@latest` rejected with a rule (Renovate owns deps and the lockfile)",
        "unchecked leftovers in the wrap-up; todo (Datadog logs for security) and a question for a colleague in the last message, both in mixed language",
    ],
    "language": "es+en",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["tenant"], ["context"], ["args", "argumentos"]],
         "note": "Todo lo tenant-scoped sale del context, never from args."},
        {"id": "b1", "type": "bug_note",
         "match": [["module-level", "global"], ["productLoader", "loader"], ["tenant"]],
         "note": "El productLoader module-level (#412) compartía el cache entre requests con key = sku (repetidos entre tenants) y capturaba el tenantId del primer request: un tenant veía products de otro."},
        {"id": "f1", "type": "failed_attempt",
         "match": [["reset", "resetLoaders", "limpiar el cache", "clear"], ["concurrent", "concurrentes", "paralel", "simultáne"]],
         "note": "Resetear el loader al final de cada request pasa secuencial pero falla con requests concurrentes; revertido."},
        {"id": "d1", "type": "decision",
         "match": [["per request", "por request", "per-request", "createLoaders", "por petición"], ["stale", "invalida", "precios", "prices", "memoria", "memory"]],
         "note": "Loaders por request en context() en vez de un cache global con el tenant en la key: ese cache nunca se invalidaría (precios/nombres viejos) y crece sin límite."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["Renovate"], ["deps", "lockfile", "bumps"]],
         "note": "No bumps de dependencias a mano: Renovate maneja las deps y el lockfile (si no, conflicts en sus PRs)."},
        {"id": "t1", "type": "todo",
         "match": [["Datadog", "logs"], ["Sofía", "Sofia", "security", "seguridad"]],
         "note": "Mañana revisar en Datadog cuántos tenants recibieron datos de otro tenant desde el deploy de #412; Sofía de security tiene que saberlo."},
        {"id": "q1", "type": "open_question",
         "match": [["mobile BFF", "BFF"], ["Diego"]],
         "note": "¿El mobile BFF usa una copia del mismo loaders.ts? Preguntar a Diego."},
        {"id": "q2", "type": "open_question", "types": ["open_question", "todo"], "required": False,
         "match": [["module-level"], ["otros loaders", "caches"]],
         "note": "No revisado: si hay otros loaders o caches module-level fuera de src/loaders.ts."},
        {"id": "v1", "type": "verified_command", "command": "npx jest && npx tsc --noEmit"},
    ],
    "secrets": [],
    "forbidden": [["doesn't want to proceed"]],
}
