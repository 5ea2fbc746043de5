# ruff: noqa: E501  (verbatim command output and file contents)
"""Next.js checkout: hydration mismatch on the delivery date (Spanish-speaking user)."""

from make_sessions import Session

RESUMEN = '''"use client";

import { addBusinessDays } from "@/lib/fechas";
import type { Pedido } from "@/types/pedido";

type Props = { pedido: Pedido };

export function ResumenPedido({ pedido }: Props) {
  const entrega = addBusinessDays(new Date(), pedido.envio.diasHabiles);
  const entregaTexto = entrega.toLocaleDateString("es-ES", {
    weekday: "long",
    day: "numeric",
    month: "long",
  });

  return (
    <section className="rounded-lg border p-4">
      <h2 className="text-lg font-semibold">Resumen</h2>
      <p>{pedido.lineas.length} artículos · {pedido.total.formateado}</p>
      <p className="text-sm text-muted-foreground">Entrega estimada: {entregaTexto}</p>
    </section>
  );
}
'''

PAGE = '''import { obtenerPedidoActual } from "@/lib/pedidos";
import { ResumenPedido } from "./ResumenPedido";

export default async function CheckoutPage() {
  const pedido = await obtenerPedidoActual();
  return (
    <main className="mx-auto max-w-2xl space-y-6 p-6">
      <ResumenPedido pedido={pedido} />
    </main>
  );
}
'''

FECHAS = '''export function addBusinessDays(desde: Date, dias: number): Date {
  const d = new Date(desde);
  let restantes = dias;
  while (restantes > 0) {
    d.setDate(d.getDate() + 1);
    const dia = d.getDay();
    if (dia !== 0 && dia !== 6) restantes--;
  }
  return d;
}
'''

TEST = '''import { render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { ResumenPedido } from "./ResumenPedido";
import { pedidoDePrueba } from "@/test/fixtures";

describe("ResumenPedido", () => {
  it("muestra la entrega estimada", () => {
    vi.setSystemTime(new Date("2026-03-06T23:30:00Z"));
    render(<ResumenPedido pedido={pedidoDePrueba({ diasHabiles: 2 })} />);
    expect(screen.getByText(/Entrega estimada/)).toBeInTheDocument();
  });
});
'''


def build() -> Session:
    s = Session("next-checkout-es", cwd="/Users/lucia/dev/tienda-web", branch="feat/checkout-resumen",
                start="2026-03-06T16:02:40.311Z", version="2.1.42", model="claude-sonnet-4-6",
                slug="gentle-wandering-otter")
    s.user(
        "Oye, en el resumen del checkout la fecha de entrega estimada sale distinta en el "
        "servidor y en el cliente y React se queja de hydration mismatch (solo por la noche, "
        "de día va bien). Está en app/checkout/ResumenPedido.tsx.\n\nPor cierto: en este repo "
        "usamos pnpm, no npm. No me generes un package-lock, que luego el CI se lía.",
        wait=4,
    )
    s.think(
        "Night-only mismatch smells like timezone: server renders in UTC, browser in the user's "
        "local zone. After 23:00 UTC (midnight in Madrid) the 'today' differs. Let me read the "
        "component and the page."
    )
    s.call(s.read_call("app/checkout/ResumenPedido.tsx", RESUMEN),
           s.read_call("app/checkout/page.tsx", PAGE),
           s.read_call("lib/fechas.ts", FECHAS))
    s.say(
        "Ya veo el problema. `ResumenPedido` es un client component, pero Next lo renderiza "
        "primero en el servidor: allí `new Date()` y `toLocaleDateString` usan la zona del "
        "servidor (UTC en Vercel), y al hidratar el navegador recalcula con la hora local del "
        "usuario. Entre las 23:00 y las 00:00 UTC ya es \"mañana\" en Madrid, así que "
        "`addBusinessDays` parte de otro día y el texto no coincide. Por eso solo pasa de noche.\n\n"
        "Lo más rápido es calcular la fecha solo en el cliente, después de montar:"
    )
    s.edit("app/checkout/ResumenPedido.tsx",
           '''import { addBusinessDays } from "@/lib/fechas";
import type { Pedido } from "@/types/pedido";

type Props = { pedido: Pedido };

export function ResumenPedido({ pedido }: Props) {
  const entrega = addBusinessDays(new Date(), pedido.envio.diasHabiles);
  const entregaTexto = entrega.toLocaleDateString("es-ES", {
    weekday: "long",
    day: "numeric",
    month: "long",
  });
''',
           '''import { useEffect, useState } from "react";
import { addBusinessDays } from "@/lib/fechas";
import type { Pedido } from "@/types/pedido";

type Props = { pedido: Pedido };

export function ResumenPedido({ pedido }: Props) {
  const [entregaTexto, setEntregaTexto] = useState("");

  useEffect(() => {
    const entrega = addBusinessDays(new Date(), pedido.envio.diasHabiles);
    setEntregaTexto(
      entrega.toLocaleDateString("es-ES", { weekday: "long", day: "numeric", month: "long" }),
    );
  }, [pedido.envio.diasHabiles]);
''')
    s.bash("pnpm vitest run app/checkout 2>&1 | tail -15", """\

 RUN  v2.1.8 /Users/lucia/dev/tienda-web

 ✓ app/checkout/ResumenPedido.test.tsx (1 test) 41ms

 Test Files  1 passed (1)
      Tests  1 passed (1)
   Start at  17:04:31
   Duration  1.12s (transform 212ms, setup 301ms, collect 388ms, tests 41ms, environment 302ms, prepare 96ms)""",
           desc="Run checkout tests", secs=4.0)
    s.say(
        "Listo: el texto ya no se renderiza en el servidor, así que no hay nada que comparar al "
        "hidratar. ¿Puedes probarlo en local con `pnpm dev` poniendo el reloj después de medianoche?"
    )
    s.turn_end()
    s.user(
        "Lo he probado. Ya no sale el warning, pero parpadea: primero sale \"Entrega estimada:\" "
        "vacío y medio segundo después aparece la fecha. En móvil se nota mucho y mueve el "
        "layout. Así no me vale.\n\nAh, y si tocas tipos: nada de `any` ni `as unknown as`, en "
        "review lo rechazamos siempre.",
        wait=240,
    )
    s.think(
        "Right, the client-only approach causes a layout shift. Revert it. The real fix is to "
        "make server and client compute the same string, with the timezone pinned so the "
        "environment no longer matters. Check where they ship to."
    )
    s.say("Tienes razón, el parpadeo es peor que el warning. Deshago el `useEffect`.")
    s.edit("app/checkout/ResumenPedido.tsx",
           '''import { useEffect, useState } from "react";
import { addBusinessDays } from "@/lib/fechas";
import type { Pedido } from "@/types/pedido";

type Props = { pedido: Pedido };

export function ResumenPedido({ pedido }: Props) {
  const [entregaTexto, setEntregaTexto] = useState("");

  useEffect(() => {
    const entrega = addBusinessDays(new Date(), pedido.envio.diasHabiles);
    setEntregaTexto(
      entrega.toLocaleDateString("es-ES", { weekday: "long", day: "numeric", month: "long" }),
    );
  }, [pedido.envio.diasHabiles]);
''',
           '''import { addBusinessDays } from "@/lib/fechas";
import type { Pedido } from "@/types/pedido";

type Props = { pedido: Pedido };

export function ResumenPedido({ pedido }: Props) {
  const entrega = addBusinessDays(new Date(), pedido.envio.diasHabiles);
  const entregaTexto = entrega.toLocaleDateString("es-ES", {
    weekday: "long",
    day: "numeric",
    month: "long",
  });
''')
    s.bash('rg -n "zonas|timeZone|peninsula|península" config lib --glob "*.ts"', """\
config/envios.ts:3:// Solo enviamos a la península (sin Baleares ni Canarias por ahora).
config/envios.ts:4:export const ZONAS_ENVIO = ["peninsula"] as const;""", desc="Where do we ship?")
    s.say(
        "Como la tienda solo envía a la península, la hora de Madrid es la correcta para todos "
        "los pedidos, venga el usuario de donde venga. Así que fijo `timeZone: \"Europe/Madrid\"` "
        "tanto para decidir qué día es \"hoy\" como para formatear: servidor y cliente producen "
        "exactamente el mismo texto, sin hidratar nada dos veces y sin parpadeo.\n\n"
        "Para no repartir la zona por los componentes, la pongo en `lib/fechas.ts`:"
    )
    s.edit("lib/fechas.ts", "export function addBusinessDays(",
           '''export const ZONA_TIENDA = "Europe/Madrid";

/** "Hoy" en la zona de la tienda, igual en servidor y navegador. */
export function hoyEnTienda(ahora: Date = new Date()): Date {
  const partes = new Intl.DateTimeFormat("en-CA", {
    timeZone: ZONA_TIENDA,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(ahora);
  return new Date(`${partes}T12:00:00Z`);
}

export function formatearEntrega(fecha: Date): string {
  return new Intl.DateTimeFormat("es-ES", {
    timeZone: ZONA_TIENDA,
    weekday: "long",
    day: "numeric",
    month: "long",
  }).format(fecha);
}

export function addBusinessDays(''')
    s.edit("app/checkout/ResumenPedido.tsx",
           '''import { addBusinessDays } from "@/lib/fechas";''',
           '''import { addBusinessDays, formatearEntrega, hoyEnTienda } from "@/lib/fechas";''')
    s.edit("app/checkout/ResumenPedido.tsx",
           '''  const entrega = addBusinessDays(new Date(), pedido.envio.diasHabiles);
  const entregaTexto = entrega.toLocaleDateString("es-ES", {
    weekday: "long",
    day: "numeric",
    month: "long",
  });
''',
           '''  const entrega = addBusinessDays(hoyEnTienda(), pedido.envio.diasHabiles);
  const entregaTexto: string = formatearEntrega(entrega);
''')
    s.read("app/checkout/ResumenPedido.test.tsx", TEST)
    s.edit("app/checkout/ResumenPedido.test.tsx",
           '''    expect(screen.getByText(/Entrega estimada/)).toBeInTheDocument();
  });
});''',
           '''    expect(screen.getByText(/Entrega estimada/)).toBeInTheDocument();
  });

  it("cuenta desde el día de Madrid aunque en UTC siga siendo ayer", () => {
    // 23:30 UTC del viernes 6 = 00:30 del sábado 7 en Madrid
    vi.setSystemTime(new Date("2026-03-06T23:30:00Z"));
    render(<ResumenPedido pedido={pedidoDePrueba({ diasHabiles: 2 })} />);
    expect(screen.getByText(/martes, 10 de marzo/)).toBeInTheDocument();
  });
});''')
    s.bash("pnpm tsc --noEmit", """\
app/checkout/ResumenPedido.tsx(10,64): error TS18048: 'pedido.envio' is possibly 'undefined'.""",
           code=2, desc="Type check", secs=14.0)
    s.say(
        "`pedido.envio` es opcional en `types/pedido.ts` (los pedidos de recogida en tienda no "
        "tienen envío); el código original tenía el mismo problema, solo que nadie había pasado "
        "tsc en esta rama. Un pedido sin envío no tiene fecha de entrega, así que en vez de "
        "forzar el tipo (ni `!` ni casts, como pediste) el componente no muestra la línea."
    )
    s.edit("app/checkout/ResumenPedido.tsx",
           '''  const entrega = addBusinessDays(hoyEnTienda(), pedido.envio.diasHabiles);
  const entregaTexto: string = formatearEntrega(entrega);
''',
           '''  const dias = pedido.envio?.diasHabiles;
  const entregaTexto = dias === undefined ? null : formatearEntrega(addBusinessDays(hoyEnTienda(), dias));
''')
    s.edit("app/checkout/ResumenPedido.tsx",
           '''      <p className="text-sm text-muted-foreground">Entrega estimada: {entregaTexto}</p>''',
           '''      {entregaTexto && (
        <p className="text-sm text-muted-foreground">Entrega estimada: {entregaTexto}</p>
      )}''')
    s.bash("pnpm tsc --noEmit && pnpm vitest run app/checkout 2>&1 | tail -8", """\

 ✓ app/checkout/ResumenPedido.test.tsx (2 tests) 58ms

 Test Files  1 passed (1)
      Tests  2 passed (2)
   Start at  17:21:02
   Duration  1.20s (transform 230ms, setup 298ms, collect 401ms, tests 58ms, environment 310ms, prepare 101ms)""",
           desc="Type check and run checkout tests", secs=21.0)
    s.bash("pnpm lint 2>&1 | tail -5", "✔ No ESLint warnings or errors", desc="Lint", secs=9.0)
    s.todo([
        ("Arreglar hydration mismatch en ResumenPedido", "completed", "Arreglando hydration mismatch"),
        ("Test de la fecha cerca de medianoche", "completed", "Añadiendo test de medianoche"),
        ("Usar formatearEntrega en el email de confirmación (lib/email/fechas.ts)", "pending",
         "Unificando fechas del email"),
    ])
    s.say(
        "Hecho. Resumen:\n\n"
        "- **Causa:** el servidor calculaba \"hoy\" y formateaba en UTC, el navegador en hora "
        "local; entre las 23:00 y las 00:00 UTC salía otro día.\n"
        "- **Arreglo:** `lib/fechas.ts` tiene `ZONA_TIENDA = \"Europe/Madrid\"`, `hoyEnTienda()` "
        "y `formatearEntrega()`; `ResumenPedido` los usa, así que servidor y cliente producen el "
        "mismo texto. Sin `useEffect`, sin parpadeo.\n"
        "- Los pedidos de recogida (sin `envio`) ya no muestran una fecha inventada.\n"
        "- `pnpm tsc --noEmit`, `pnpm vitest run app/checkout` (2 tests) y `pnpm lint` en verde. "
        "No he tocado `package.json` ni el lockfile.\n\n"
        "Queda pendiente: el email de confirmación calcula la fecha con su propia función en "
        "`lib/email/fechas.ts`, con la hora del servidor, así que puede decir un día distinto "
        "que la web. Lo he dejado en la lista."
    )
    s.turn_end()
    s.user("Perfecto, gracias. ¿Y qué pasa con Canarias? Allí es una hora menos. Si algún día "
           "enviamos allí esto se rompe, ¿no?", wait=95)
    s.say(
        "Sí: con la zona fija en Madrid, un pedido a Canarias entre las 23:00 y las 00:00 hora "
        "peninsular contaría desde un día que allí todavía no ha empezado. Hoy no pasa porque "
        "`config/envios.ts` solo tiene la península, pero si se añaden las islas la zona tendría "
        "que salir de la dirección de envío de cada pedido, no de una constante. No lo toco "
        "ahora; es una decisión vuestra cuándo abrir Canarias."
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Spanish user, Spanish replies, English code",
        "rules in prompts (pnpm not npm; no `any`)",
        "approach reverted after the user tried it (useEffect flicker)",
        "decision with its why",
        "tsc error then pass",
        "TodoWrite with a pending item",
        "open question asked by the user at the end",
    ],
    "language": "es",
    "empty": False,
    "items": [
        {"id": "c1", "type": "preference", "types": ["preference", "constraint"],
         "match": [["pnpm"], ["no npm", "package-lock"]],
         "note": "Este repo usa pnpm, no npm; no generar package-lock."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["any"], ["as unknown as"]],
         "note": "Nada de `any` ni `as unknown as` en los tipos: en review se rechaza."},
        {"id": "f1", "type": "failed_attempt",
         "match": [["useEffect"], ["parpade"]],
         "note": "Calcular la fecha solo en el cliente con useEffect quitaba el warning pero "
                 "parpadeaba y movía el layout; se deshizo."},
        {"id": "d1", "type": "decision",
         "match": [["Europe/Madrid", "ZONA_TIENDA"], ["península", "mismo texto", "hydrat"]],
         "note": "La fecha de entrega se calcula y formatea con timeZone Europe/Madrid fija, "
                 "porque solo se envía a la península y así servidor y cliente dan el mismo texto."},
        {"id": "b1", "type": "bug_note", "types": ["bug_note", "decision"],
         "match": [["hydration", "hidrat"], ["UTC"]],
         "note": "Hydration mismatch nocturno en ResumenPedido: servidor en UTC, navegador en "
                 "hora local, entre 23:00 y 00:00 UTC salía otro día."},
        {"id": "b2", "type": "bug_note", "types": ["bug_note", "decision"], "required": False,
         "match": [["envio", "envío"], ["recogida", "undefined", "fecha de entrega"]],
         "note": "pedido.envio es opcional (recogida en tienda): sin envío no se muestra la "
                 "línea de entrega (TS18048)."},
        {"id": "t1", "type": "todo",
         "match": [["email"], ["lib/email/fechas.ts", "formatearEntrega"]],
         "note": "El email de confirmación usa su propia función en lib/email/fechas.ts con la "
                 "hora del servidor; pasar a formatearEntrega."},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo"],
         "match": [["Canarias"]],
         "note": "Si se envía a Canarias la zona fija de Madrid falla; la zona tendría que salir "
                 "de la dirección de envío."},
        {"id": "v1", "type": "verified_command",
         "command": "pnpm tsc --noEmit && pnpm vitest run app/checkout"},
        {"id": "v2", "type": "verified_command", "command": "pnpm vitest run app/checkout"},
        {"id": "v3", "type": "verified_command", "command": "pnpm lint"},
    ],
    "secrets": [],
    "forbidden": [],
}
