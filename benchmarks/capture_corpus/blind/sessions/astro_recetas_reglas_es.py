# ruff: noqa: E501  (verbatim command output and file contents)
"""Astro content collection + RSS with five team rules in the first prompt; astro.config Edit rejected (Spanish, Spain)."""

from make_sessions import Session

CONFIG_TS = '''import { defineCollection, z } from "astro:content";

const noticias = defineCollection({
  type: "content",
  schema: z.object({
    titulo: z.string(),
    fecha: z.date(),
  }),
});

export const collections = { noticias };
'''

ASTRO_CONFIG = '''import { defineConfig } from "astro/config";
import netlify from "@astrojs/netlify";

export default defineConfig({
  output: "static",
  adapter: netlify(),
  i18n: { defaultLocale: "es", locales: ["es", "en"] },
});
'''

RECETA_MD = '''---
titulo: "Lentejas con chorizo de la abuela"
fecha: "12/03/2024"
racion: 4
portada: ./lentejas.jpg
---

Pon las lentejas en remojo la noche anterior…
'''

ORDENAR = '''import type { CollectionEntry } from "astro:content";

export function ordenarPorFecha(recetas: CollectionEntry<"recetas">[]) {
  return [...recetas].sort((a, b) => b.data.fecha.valueOf() - a.data.fecha.valueOf());
}
'''

ORDENAR_TEST = '''import { describe, expect, it } from "vitest";
import { ordenarPorFecha } from "../src/lib/recetas";

const r = (slug: string, fecha: Date) => ({ slug, data: { fecha } }) as never;

describe("ordenarPorFecha", () => {
  it("pone primero la más reciente", () => {
    const orden = ordenarPorFecha([r("a", new Date("2024-03-12")), r("b", new Date("2024-05-02"))]);
    expect(orden.map((x: { slug: string }) => x.slug)).toEqual(["b", "a"]);
  });
});
'''


def build() -> Session:
    s = Session("astro-recetas-reglas-es", cwd="/Users/irene/proyectos/recetario-web", branch="feat/recetas",
                start="2026-03-14T10:22:09.330Z", version="2.1.57", slug="lentil-feed-falcon")
    s.user(
        "Buenas. Hay que montar la sección de recetas: una colección nueva, listado en /recetas ordenado por fecha "
        "y un feed RSS. Los .md ya están en src/content/recetas (los pasó Marta del WordPress viejo).\n\n"
        "Antes de nada, cómo trabajamos aquí:\n"
        "- nada de islas de React ni de ningún framework, componentes .astro y si hace falta JS, vanilla en un <script>\n"
        "- imágenes siempre con <Image> de astro:assets, nunca <img> a pelo\n"
        "- pnpm, no npm\n"
        "- el astro.config no se toca sin hablar con Lucía, que es la que lleva el deploy en Netlify",
        wait=6,
    )
    s.todo([("Colección recetas con schema", "in_progress", "Creando la colección recetas"),
            ("Página /recetas ordenada por fecha", "pending", "Creando la página /recetas"),
            ("Feed RSS", "pending", "Creando el feed RSS"),
            ("astro check + build", "pending", "Comprobando")])
    s.call(s.read_call("src/content/config.ts", CONFIG_TS),
           s.read_call("src/content/recetas/lentejas-con-chorizo.md", RECETA_MD))
    s.bash("ls src/content/recetas | head -5 && ls src/content/recetas/*.md | wc -l", '''arroz-al-horno.md
bizcocho-de-yogur.md
croquetas-de-jamon.md
lentejas-con-chorizo.md
lentejas.jpg
38''', desc="Recetas migradas")
    s.say(
        "38 recetas. Las fechas vienen como texto `\"12/03/2024\"` (formato del WordPress), no como "
        "fecha YAML, así que `z.date()` no valdría. Uso `z.coerce.date()` para que las convierta, y "
        "la portada con `image()` para que pase por astro:assets."
    )
    s.edit("src/content/config.ts", '''export const collections = { noticias };''', '''const recetas = defineCollection({
  type: "content",
  schema: ({ image }) =>
    z.object({
      titulo: z.string(),
      fecha: z.coerce.date(),
      racion: z.number().int().positive(),
      portada: image(),
    }),
});

export const collections = { noticias, recetas };''')
    s.write("src/lib/recetas.ts", ORDENAR)
    s.write("src/pages/recetas/index.astro", '''---
import { getCollection } from "astro:content";
import { Image } from "astro:assets";
import Base from "../../layouts/Base.astro";
import { ordenarPorFecha } from "../../lib/recetas";

const recetas = ordenarPorFecha(await getCollection("recetas"));
---
<Base titulo="Recetas">
  <ul class="recetas">
    {recetas.map((r) => (
      <li>
        <a href={`/recetas/${r.slug}/`}>
          <Image src={r.data.portada} alt="" width={320} height={200} />
          <h2>{r.data.titulo}</h2>
          <time datetime={r.data.fecha.toISOString()}>{r.data.fecha.toLocaleDateString("es-ES")}</time>
        </a>
      </li>
    ))}
  </ul>
</Base>
''')
    s.bash("pnpm astro check 2>&1 | tail -4", '''Result (41 files):
- 0 errors
- 0 warnings
- 0 hints''', desc="astro check", secs=22)
    s.todo([("Colección recetas con schema", "completed", "Creando la colección recetas"),
            ("Página /recetas ordenada por fecha", "completed", "Creando la página /recetas"),
            ("Feed RSS", "in_progress", "Creando el feed RSS"),
            ("astro check + build", "pending", "Comprobando")])
    s.bash("pnpm add @astrojs/rss", '''Packages: +2
++
Progress: resolved 512, reused 498, downloaded 2, added 2, done

dependencies:
+ @astrojs/rss 4.0.7

Done in 3.1s''', desc="Añadir @astrojs/rss", secs=6)
    s.write("src/pages/rss.xml.ts", '''import rss from "@astrojs/rss";
import { getCollection } from "astro:content";
import type { APIContext } from "astro";
import { ordenarPorFecha } from "../lib/recetas";

export async function GET(context: APIContext) {
  const recetas = ordenarPorFecha(await getCollection("recetas"));
  return rss({
    title: "Recetario — recetas",
    description: "Las últimas recetas del Recetario",
    site: context.site!,
    items: recetas.map((r) => ({ title: r.data.titulo, pubDate: r.data.fecha, link: `/recetas/${r.slug}/` })),
  });
}
''')
    s.bash("pnpm build 2>&1 | tail -6", '''12:31:40 [build] Building static entrypoints...
12:31:44 [ERROR] [GetStaticPathsRequired] [@astrojs/rss] "site" is required. Pass it as an option or set `site` in astro.config.
  Hint:
    See https://docs.astro.build/en/guides/rss/
  Location:
    src/pages/rss.xml.ts:9:5''', desc="Build", secs=30)
    s.say("El feed necesita la URL absoluta del sitio. Lo normal es `site` en `astro.config.mjs`:")
    s.read("astro.config.mjs", ASTRO_CONFIG)
    s.edit_rejected("astro.config.mjs", '''  output: "static",''', '''  site: "https://recetario.es",
  output: "static",''', reason="el astro.config no, te lo he dicho al principio. eso lo cambia Lucía, está con el tema del dominio nuevo. de momento saca el site de una variable de entorno")
    s.say(
        "Perdona, se me pasó. Lo leo de `PUBLIC_SITE_URL` (Netlify ya inyecta variables de entorno "
        "en el build) y `context.site` tiene prioridad, así cuando Lucía ponga `site` en la config "
        "el feed lo usa sin tocar nada más."
    )
    s.edit("src/pages/rss.xml.ts", '''    site: context.site!,''', '''    // `site` lo pondrá Lucía en astro.config (dominio nuevo); mientras, la variable de entorno.
    site: context.site ?? import.meta.env.PUBLIC_SITE_URL,''')
    s.bash("grep -n PUBLIC_SITE_URL .env.example netlify.toml", '''netlify.toml:7:  PUBLIC_SITE_URL = "https://recetario-web.netlify.app"''', desc="¿Existe ya la variable?")
    s.bash("printf 'PUBLIC_SITE_URL=http://localhost:4321\\n' >> .env.example && cp -n .env.example .env", "", desc="Variable en local")
    s.bash("pnpm build 2>&1 | tail -3", '''12:35:02 [build] 43 page(s) built in 9.84s
12:35:02 [build] Complete!''', desc="Build", secs=30)
    s.bash("grep -o '<title>[^<]*</title><link>[^<]*</link><guid[^>]*>[^<]*</guid><pubDate>[^<]*</pubDate>' dist/rss.xml | head -3", '''<title>Croquetas de jamón</title><link>http://localhost:4321/recetas/croquetas-de-jamon/</link><guid isPermaLink="true">http://localhost:4321/recetas/croquetas-de-jamon/</guid><pubDate>Tue, 10 Dec 2024 00:00:00 GMT</pubDate>
<title>Lentejas con chorizo de la abuela</title><link>http://localhost:4321/recetas/lentejas-con-chorizo/</link><guid isPermaLink="true">http://localhost:4321/recetas/lentejas-con-chorizo/</guid><pubDate>Tue, 03 Dec 2024 00:00:00 GMT</pubDate>
<title>Bizcocho de yogur</title><link>http://localhost:4321/recetas/bizcocho-de-yogur/</link><guid isPermaLink="true">http://localhost:4321/recetas/bizcocho-de-yogur/</guid><pubDate>Fri, 11 Oct 2024 00:00:00 GMT</pubDate>''', desc="Mirar el feed")
    s.say(
        "Aquí hay un problema: las lentejas salen con fecha **3 de diciembre**, pero el .md dice "
        "`12/03/2024`, que es 12 de marzo. `z.coerce.date()` hace `new Date(\"12/03/2024\")`, y "
        "JavaScript lee ese formato como mes/día (americano). Todas las recetas con día ≤ 12 "
        "tienen la fecha cambiada, y el orden del listado y del feed está mal. `astro check` no lo "
        "puede ver: el tipo es correcto, el valor no.\n\n"
        "Dos opciones: parsear `dd/mm/aaaa` a mano en el schema, o convertir las 38 fechas de los "
        ".md a ISO (`2024-03-12`) una vez y volver a `z.date()`."
    )
    s.turn_end()
    s.user("convierte los md a ISO. si dejamos el formato raro alguien lo vuelve a meter mal, y Marta escribe las nuevas a mano", wait=80)
    s.bash("cd src/content/recetas && sed -i -E 's#^fecha: \"([0-9]{2})/([0-9]{2})/([0-9]{4})\"#fecha: \\3-\\2-\\1#' *.md && grep -h '^fecha:' *.md | sort | uniq -c | sort -rn | head -3", '''      2 fecha: 2024-05-02
      1 fecha: 2024-12-10
      1 fecha: 2024-11-28''', desc="Fechas a ISO")
    s.bash("grep -L '^fecha: [0-9]\\{4\\}-' src/content/recetas/*.md", "", desc="¿Queda alguna sin convertir?", no_matches=True)
    s.edit("src/content/config.ts", '''      fecha: z.coerce.date(),''', '''      fecha: z.date(), // ISO sin comillas (AAAA-MM-DD); antes venían dd/mm/aaaa del WordPress''')
    s.write("tests/recetas.test.ts", ORDENAR_TEST)
    s.bash("pnpm test", ''' ✓ tests/recetas.test.ts (1 test) 3ms
 ✓ tests/slug.test.ts (4 tests) 5ms

 Test Files  2 passed (2)
      Tests  5 passed (5)
   Duration  612ms''', desc="vitest", secs=8)
    s.bash("pnpm astro check && pnpm build", '''Result (42 files):
- 0 errors
- 0 warnings
- 0 hints

12:41:19 [build] 43 page(s) built in 9.61s
12:41:19 [build] Complete!''', desc="check + build", secs=40)
    s.todo([("Colección recetas con schema", "completed", "Creando la colección recetas"),
            ("Página /recetas ordenada por fecha", "completed", "Creando la página /recetas"),
            ("Feed RSS", "completed", "Creando el feed RSS"),
            ("astro check + build", "completed", "Comprobando")])
    s.say(
        "Listo:\n- Colección `recetas` (schema con `image()` para la portada), `/recetas` ordenado por "
        "fecha con `<Image>`, feed en `/rss.xml`.\n- Las 38 fechas pasadas a ISO; ahora sí, las "
        "lentejas son del 12 de marzo.\n- El feed toma `context.site` y, mientras no exista, "
        "`PUBLIC_SITE_URL` (en Netlify ya vale `https://recetario-web.netlify.app`). `astro.config` sin tocar.\n"
        "- `pnpm test`, `pnpm astro check` y `pnpm build` en verde."
    )
    s.turn_end()
    s.user(
        "genial. lo del site se lo comento a Lucía el lunes. las recetas en inglés las traduce Marta después del lanzamiento. "
        "lo que no sé es si en inglés irán en /en/recetas o en un subdominio, eso está sin decidir",
        wait=150,
    )
    s.say("Apuntado. Con `i18n` ya configurado para `es`/`en`, lo de `/en/` saldría casi gratis; un subdominio sería otro deploy.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Astro 4 content collections, astro:assets, @astrojs/rss, vitest, pnpm, Spanish (Spain)",
        "four team rules at once in the first prompt (no framework islands, <Image> only, pnpm, astro.config only via Lucía)",
        "TodoWrite progress; a build error ('site' is required); an Edit to astro.config rejected with the user's reason, env-var fallback instead",
        "z.coerce.date() reading dd/mm/yyyy as month/day: a silent wrong-date bug found by looking at the feed, not by astro check",
        "the user's decision with its reason (convert the .md to ISO); todos and an open question in the last message",
    ],
    "language": "es",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["React", "framework", "islas"], ["vanilla", ".astro"]],
         "note": "Nada de islas de React ni de otro framework: componentes .astro y JS vanilla en <script>."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["<Image>", "astro:assets"], ["<img>"]],
         "note": "Imágenes siempre con <Image> de astro:assets, nunca <img> a pelo."},
        {"id": "c3", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["pnpm"], ["npm"]],
         "note": "pnpm, no npm."},
        {"id": "c4", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["astro.config"], ["Lucía"]],
         "note": "astro.config no se toca sin hablar con Lucía (lleva el deploy en Netlify y el dominio nuevo)."},
        {"id": "d1", "type": "decision",
         "match": [["PUBLIC_SITE_URL"], ["context.site", "astro.config", "Lucía"]],
         "note": "El feed RSS usa context.site y, mientras Lucía no ponga site en astro.config, PUBLIC_SITE_URL."},
        {"id": "b1", "type": "bug_note", "types": ["bug_note", "failed_attempt"],
         "match": [["z.coerce.date", "12/03/2024"], ["mes/día", "americano", "diciembre"]],
         "note": "z.coerce.date() leía las fechas dd/mm/aaaa del WordPress como mes/día: lentejas del 12 de marzo salían el 3 de diciembre, orden mal."},
        {"id": "d2", "type": "decision",
         "match": [["ISO"], ["formato raro", "a mano", "vuelve a meter mal"]],
         "note": "Las fechas de los .md se convirtieron a ISO (z.date()) en vez de parsear dd/mm/aaaa: si no, alguien lo vuelve a meter mal."},
        {"id": "t1", "type": "todo",
         "match": [["Marta"], ["traduce", "inglés", "lanzamiento"]],
         "note": "Marta traduce las recetas al inglés después del lanzamiento."},
        {"id": "t2", "type": "todo", "required": False,
         "match": [["site"], ["Lucía"], ["lunes"]],
         "note": "Irene le comenta a Lucía el lunes lo de poner site en astro.config."},
        {"id": "q1", "type": "open_question",
         "match": [["/en/"], ["subdominio"]],
         "note": "¿Recetas en inglés en /en/recetas o en un subdominio? Sin decidir."},
        {"id": "v1", "type": "verified_command", "command": "pnpm test"},
        {"id": "v2", "type": "verified_command", "command": "pnpm astro check && pnpm build"},
        {"id": "v3", "type": "verified_command", "command": "pnpm astro check", "required": False},
        {"id": "v4", "type": "verified_command", "command": "pnpm build", "required": False},
    ],
    "secrets": [],
    "forbidden": [["doesn't want to proceed"], ["Todos have been modified"]],
}
