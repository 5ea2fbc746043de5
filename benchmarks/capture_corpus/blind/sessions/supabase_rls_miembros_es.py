# ruff: noqa: E501  (verbatim command output and file contents)
"""Supabase RLS: store employees can't see orders; policy recursion on miembros; simpler miembros policy tried and dropped; AskUserQuestion picks a SECURITY DEFINER function over JWT claims; service_role key in output; db push rejected (Spanish)."""

from make_sessions import Session

SERVICE_KEY = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZSIsInJlZiI6Imt4cWZ0YnpsbW5vdmR3aGF5anJlIiwicm9sZSI6InNlcnZpY2Vfcm9sZSIsImlhdCI6MTcyNjQ5MzIwMCwiZXhwIjoyMDQyMDY5MjAwfQ.R7s2Xq9lKm4Vb0pT8nYwZ1aC3dE5fG6hJ7iK8lM9nOq"

MIG_PEDIDOS = '''create table public.pedidos (
  id uuid primary key default gen_random_uuid(),
  tienda_id uuid not null references public.tiendas (id) on delete cascade,
  cliente text not null,
  total numeric(12, 2) not null,
  estado text not null default 'nuevo',
  creado_en timestamptz not null default now()
);

alter table public.pedidos enable row level security;

create policy pedidos_select_dueno on public.pedidos
  for select to authenticated
  using (
    exists (
      select 1 from public.tiendas t
      where t.id = pedidos.tienda_id and t.owner_id = auth.uid()
    )
  );
'''

MIG_MIEMBROS = '''create table public.miembros (
  tienda_id uuid not null references public.tiendas (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  rol text not null check (rol in ('admin', 'vendedor', 'lector')),
  primary key (tienda_id, user_id)
);

alter table public.miembros enable row level security;

-- cada miembro ve a los demás miembros de sus tiendas (pantalla "Equipo")
create policy miembros_select on public.miembros
  for select to authenticated
  using (
    tienda_id in (select m.tienda_id from public.miembros m where m.user_id = auth.uid())
  );

-- equipo_tienda(): security definer, la usa la pantalla Equipo
create function public.equipo_tienda(tid uuid) returns setof public.miembros
language sql security definer stable set search_path = ''
as $$ select * from public.miembros where tienda_id = tid $$;
'''

TEST_MIEMBROS = '''begin;
select plan(1);

select tests.create_supabase_user('duena');
insert into public.tiendas (id, nombre, owner_id)
  values ('11111111-1111-1111-1111-111111111111', 'Ferretería Ruiz', tests.get_supabase_uid('duena'));
insert into public.miembros (tienda_id, user_id, rol)
  values ('11111111-1111-1111-1111-111111111111', tests.get_supabase_uid('duena'), 'admin');

select tests.clear_authentication();
select is_empty('select * from public.miembros', 'anon no ve miembros');

select * from finish();
rollback;
'''


def build() -> Session:
    s = Session("supabase-rls-miembros-es", cwd="/Users/mateo/proyectos/mostrador", branch="fix/pedidos-empleados",
                start="2026-07-22T15:10:51.006Z", version="2.1.48", slug="rls-miembros-recursion")
    s.user(
        "los empleados de una tienda no ven los pedidos en la app, solo el dueño. ej Ferretería Ruiz, el vendedor entra y la lista sale vacía. "
        "arreglalo. ojo las policies siempre por migración (supabase migration new), nada a mano en el dashboard que después nadie sabe qué hay",
        wait=5,
    )
    s.glob("supabase/migrations/*.sql", ["supabase/migrations/20260301120000_tiendas.sql",
                                          "supabase/migrations/20260301120500_pedidos.sql",
                                          "supabase/migrations/20260412093000_miembros.sql"])
    s.call(s.read_call("supabase/migrations/20260301120500_pedidos.sql", MIG_PEDIDOS),
           s.read_call("supabase/migrations/20260412093000_miembros.sql", MIG_MIEMBROS))
    s.say(
        "La causa es simple: la única policy de lectura de `pedidos` es `pedidos_select_dueno`, que exige `owner_id = auth.uid()` "
        "en la tienda. Cuando se agregó la tabla `miembros` (abril) nadie extendió la policy de pedidos, así que para un vendedor "
        "RLS filtra todo y la lista sale vacía (sin error).\n\n"
        "Primero un test pgTAP que lo reproduzca, después la policy en una migración nueva."
    )
    s.read("supabase/tests/miembros_rls.test.sql", TEST_MIEMBROS)
    s.write("supabase/tests/pedidos_rls.test.sql", '''begin;
select plan(3);

select tests.create_supabase_user('duena');
select tests.create_supabase_user('vendedor');
select tests.create_supabase_user('extrano');
insert into public.tiendas (id, nombre, owner_id)
  values ('11111111-1111-1111-1111-111111111111', 'Ferretería Ruiz', tests.get_supabase_uid('duena'));
insert into public.miembros (tienda_id, user_id, rol) values
  ('11111111-1111-1111-1111-111111111111', tests.get_supabase_uid('vendedor'), 'vendedor');
insert into public.pedidos (tienda_id, cliente, total)
  values ('11111111-1111-1111-1111-111111111111', 'Obra Palermo', 18250.00);

select tests.authenticate_as('duena');
select results_eq('select count(*)::int from public.pedidos', array[1], 'la dueña ve los pedidos de su tienda');

select tests.authenticate_as('vendedor');
select results_eq('select count(*)::int from public.pedidos', array[1], 'un miembro ve los pedidos de su tienda');

select tests.authenticate_as('extrano');
select is_empty('select * from public.pedidos', 'alguien de otra tienda no ve nada');

select * from finish();
rollback;
''')
    s.bash("supabase migration new pedidos_select_miembros", "Created new migration at supabase/migrations/20260722151804_pedidos_select_miembros.sql",
           desc="Nueva migración")
    s.write("supabase/migrations/20260722151804_pedidos_select_miembros.sql", '''create policy pedidos_select_miembros on public.pedidos
  for select to authenticated
  using (
    exists (
      select 1 from public.miembros m
      where m.tienda_id = pedidos.tienda_id and m.user_id = auth.uid()
    )
  );
''')
    s.bash("supabase db reset && supabase test db", '''Resetting local database...
Recreating database...
Initialising schema...
Seeding globals from roles.sql...
Applying migration 20260301120000_tiendas.sql...
Applying migration 20260301120500_pedidos.sql...
Applying migration 20260412093000_miembros.sql...
Applying migration 20260722151804_pedidos_select_miembros.sql...
Seeding data from supabase/seed.sql...
Finished supabase db reset on branch fix/pedidos-empleados.
./miembros_rls.test.sql .. ok
./pedidos_rls.test.sql ... 1/3 
# Failed test 2: "un miembro ve los pedidos de su tienda"
#     Caught: 42P17: infinite recursion detected in policy for relation "miembros"
#       CONTEXT: SQL statement "select count(*)::int from public.pedidos"
# Looks like you failed 1 test of 3
./pedidos_rls.test.sql ... Failed 1/3 subtests 

Test Summary Report
-------------------
./pedidos_rls.test.sql (Wstat: 0 Tests: 3 Failed: 1)
  Failed test:  2
Files=2, Tests=4,  1 wallclock secs ( 0.03 usr  0.01 sys +  0.06 cusr  0.02 sys =  0.12 CPU)
Result: FAIL''', code=1, desc="Reset local + tests pgTAP", secs=38)
    s.say(
        "Segundo problema, escondido en el medio: `42P17 infinite recursion detected in policy for relation \"miembros\"`. La "
        "policy nueva consulta `miembros`, y la policy `miembros_select` de `miembros` se consulta **a sí misma** "
        "(`tienda_id in (select ... from miembros ...)`). Postgres aplica RLS también dentro de esa subconsulta y entra en bucle. "
        "¿Por qué nunca explotó? Veamos cómo lee la app `miembros`:"
    )
    s.grep("from\\(['\"]miembros['\"]\\)|equipo_tienda", content='''app/(panel)/equipo/page.tsx:18:  const { data: equipo } = await supabase.rpc("equipo_tienda", { tid: tienda.id });
supabase/migrations/20260412093000_miembros.sql:17:-- equipo_tienda(): security definer, la usa la pantalla Equipo
supabase/migrations/20260412093000_miembros.sql:18:create function public.equipo_tienda(tid uuid) returns setof public.miembros''', path=".")
    s.say(
        "Claro: la pantalla Equipo usa la RPC `equipo_tienda()` (SECURITY DEFINER, salta RLS), así que nadie había hecho nunca un "
        "SELECT directo sobre `miembros` como usuario. La policy estaba rota desde abril sin que se notara.\n\n"
        "Lo más corto: que la policy de `miembros` no se consulte a sí misma, `using (user_id = auth.uid())`. Para lo que usa la "
        "app hoy alcanza."
    )
    s.edit("supabase/migrations/20260722151804_pedidos_select_miembros.sql", '''create policy pedidos_select_miembros''', '''drop policy miembros_select on public.miembros;
create policy miembros_select on public.miembros
  for select to authenticated
  using (user_id = auth.uid());

create policy pedidos_select_miembros''')
    s.bash("supabase db reset && supabase test db", '''Resetting local database...
Recreating database...
Initialising schema...
Seeding globals from roles.sql...
Applying migration 20260301120000_tiendas.sql...
Applying migration 20260301120500_pedidos.sql...
Applying migration 20260412093000_miembros.sql...
Applying migration 20260722151804_pedidos_select_miembros.sql...
Seeding data from supabase/seed.sql...
Finished supabase db reset on branch fix/pedidos-empleados.
./miembros_rls.test.sql .. ok
./pedidos_rls.test.sql ... ok
All tests successful.
Files=2, Tests=4,  0 wallclock secs ( 0.02 usr  0.01 sys +  0.05 cusr  0.02 sys =  0.10 CPU)
Result: PASS''', desc="Reset local + tests pgTAP", secs=37)
    s.say("Verde: el vendedor ve el pedido de su tienda y alguien de otra tienda no ve nada. ¿Lo commiteo así?")
    s.turn_end()
    s.user(
        "no, así no. Nico está sacando la rpc equipo_tienda este sprint, la pantalla Equipo va a leer miembros directo y cada uno "
        "tiene que ver a todo su equipo. con user_id = auth.uid() cada uno se ve solo a sí mismo",
        wait=65,
    )
    s.say(
        "Cierto, con eso lo de Nico no funcionaría. Lo saco. Para romper la recursión y que igual cada miembro vea a su equipo hay "
        "dos caminos, y cambian cosas de producto, así que te pregunto:"
    )
    s.edit("supabase/migrations/20260722151804_pedidos_select_miembros.sql", '''drop policy miembros_select on public.miembros;
create policy miembros_select on public.miembros
  for select to authenticated
  using (user_id = auth.uid());

create policy pedidos_select_miembros''', '''create policy pedidos_select_miembros''')
    q = "¿Cómo resolvemos en las policies a qué tiendas pertenece el usuario?"
    s.ask(
        [{"question": q, "header": "Membresía",
          "options": [("Función SECURITY DEFINER", "private.es_miembro(tienda_id): lee miembros sin pasar por RLS; una consulta por fila, con índice es barato"),
                      ("Claims en el JWT", "Un auth hook mete las tiendas en app_metadata; las policies leen auth.jwt(), sin consultas extra")]}],
        {q: "la función. claims no: si la dueña da de baja a un empleado, sigue viendo pedidos hasta que le vence el token (1 hora). ya nos pasó con un empleado que echaron en la Ferretería Ruiz"},
    )
    s.edit("supabase/migrations/20260722151804_pedidos_select_miembros.sql", '''create policy pedidos_select_miembros on public.pedidos
  for select to authenticated
  using (
    exists (
      select 1 from public.miembros m
      where m.tienda_id = pedidos.tienda_id and m.user_id = auth.uid()
    )
  );
''', '''-- Membresía vía función SECURITY DEFINER (no claims en el JWT: una baja tiene que cortar el acceso ya,
-- no cuando vence el token). Schema private: PostgREST no lo expone.
create schema if not exists private;

create or replace function private.es_miembro(tid uuid)
returns boolean
language sql
security definer
stable
set search_path = ''
as $$
  select exists (
    select 1 from public.miembros m
    where m.tienda_id = tid and m.user_id = auth.uid()
  );
$$;

revoke all on function private.es_miembro(uuid) from public, anon;
grant usage on schema private to authenticated;
grant execute on function private.es_miembro(uuid) to authenticated;

-- sin auto-referencia: antes miembros_select consultaba miembros (42P17 al usarla desde pedidos)
drop policy miembros_select on public.miembros;
create policy miembros_select on public.miembros
  for select to authenticated
  using (private.es_miembro(tienda_id));

create policy pedidos_select_miembros on public.pedidos
  for select to authenticated
  using (private.es_miembro(tienda_id));
''')
    s.say("Y un test para el caso de Nico: un miembro ve a todo su equipo con un SELECT directo.")
    s.edit("supabase/tests/miembros_rls.test.sql", '''select plan(1);''', '''select plan(2);''')
    s.edit("supabase/tests/miembros_rls.test.sql", '''select tests.clear_authentication();''', '''select tests.create_supabase_user('vendedor');
insert into public.miembros (tienda_id, user_id, rol)
  values ('11111111-1111-1111-1111-111111111111', tests.get_supabase_uid('vendedor'), 'vendedor');
select tests.authenticate_as('vendedor');
select results_eq('select count(*)::int from public.miembros', array[2], 'un miembro ve a todo el equipo de su tienda');

select tests.clear_authentication();''')
    s.bash("supabase db reset && supabase test db", '''Resetting local database...
Recreating database...
Initialising schema...
Seeding globals from roles.sql...
Applying migration 20260301120000_tiendas.sql...
Applying migration 20260301120500_pedidos.sql...
Applying migration 20260412093000_miembros.sql...
Applying migration 20260722151804_pedidos_select_miembros.sql...
Seeding data from supabase/seed.sql...
Finished supabase db reset on branch fix/pedidos-empleados.
./miembros_rls.test.sql .. ok
./pedidos_rls.test.sql ... ok
All tests successful.
Files=2, Tests=5,  1 wallclock secs ( 0.02 usr  0.01 sys +  0.06 cusr  0.02 sys =  0.11 CPU)
Result: PASS''', desc="Reset local + tests pgTAP", secs=36)
    s.say("Todo verde. Antes de proponer subirlo, miro contra qué proyecto está linkeado el CLI:")
    s.bash("grep SUPABASE .env.local && cat supabase/.temp/project-ref", f'''NEXT_PUBLIC_SUPABASE_URL=https://kxqftbzlmnovdwhayjre.supabase.co
NEXT_PUBLIC_SUPABASE_ANON_KEY=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZSIsInJlZiI6Imt4cWZ0YnpsbW5vdmR3aGF5anJlIiwicm9sZSI6ImFub24ifQ.c2Vh
SUPABASE_SERVICE_ROLE_KEY={SERVICE_KEY}
kxqftbzlmnovdwhayjre''', desc="Proyecto linkeado")
    s.say(
        "Ojo: `.env.local` tiene la **service_role key** del proyecto `kxqftbzlmnovdwhayjre` en texto plano (salta RLS por "
        "completo); conviene que no termine en ningún log ni captura. El CLI está linkeado a ese mismo proyecto. Subo la migración:"
    )
    s.bash_rejected("supabase db push", desc="Aplicar la migración al proyecto linkeado",
                    reason="no, las migraciones las aplica el CI cuando se mergea a main. la última vez alguien hizo db push desde su máquina y quedó el historial de migraciones desincronizado, nos costó una tarde")
    s.say("Entendido, no toco el proyecto remoto; queda para el CI al mergear.")
    s.bash("git add -A && git commit -qm 'rls: miembros ven pedidos de su tienda (private.es_miembro, sin recursión en miembros_select)' && git log --oneline -1",
           "3d9be41 rls: miembros ven pedidos de su tienda (private.es_miembro, sin recursión en miembros_select)", desc="Commit")
    s.say(
        "Resumen:\n\n"
        "- **Causa:** `pedidos` solo tenía policy para el dueño; `miembros` nunca se sumó.\n"
        "- **Segundo bug:** `miembros_select` se consultaba a sí misma → `42P17 infinite recursion` en cuanto alguien lee "
        "`miembros` con RLS; no se notaba porque Equipo usa la RPC `equipo_tienda()`.\n"
        "- **Probado y descartado:** `miembros_select` con `user_id = auth.uid()` — sin recursión y verde, pero cada uno se ve "
        "solo a sí mismo y Nico necesita que la pantalla Equipo lea `miembros` directo.\n"
        "- **Solución:** `private.es_miembro(tid)` SECURITY DEFINER con `search_path = ''`, usada por ambas policies. Elegida "
        "sobre claims en el JWT porque una baja tiene que cortar el acceso al instante, no al vencer el token.\n"
        "- `supabase db reset && supabase test db` verde (5 tests).\n\n"
        "No hecho: índice en `miembros(user_id)` (la PK empieza por `tienda_id`, así que la función no lo aprovecha del todo), y "
        "las policies de UPDATE/DELETE de pedidos siguen siendo solo del dueño."
    )
    s.turn_end()
    s.user(
        "dale. el índice lo agrego yo mañana en otra migración. lo de si los 'lector' tienen que ver los montos de los pedidos o no lo decide Lucía, le pregunto",
        wait=70,
    )
    s.say("Perfecto. Si los lectores no deben ver montos, eso ya no es RLS (filtra filas, no columnas): habría que exponerles una vista sin `total`.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Supabase (Postgres RLS, supabase CLI, pgTAP via `supabase test db`), Rioplatense Spanish",
        "a rule in the first prompt (policies only through `supabase migration new`, never in the dashboard)",
        "a pgTAP failure whose real error (42P17 infinite recursion in miembros policy) is in the middle of the output",
        "a simpler miembros policy tried, green, refused by the user (Nico's Equipo screen will read miembros directly), reverted",
        "AskUserQuestion answered in free text: SECURITY DEFINER function over JWT claims, with the why (removed employees keep access until the token expires)",
        "service_role key printed by `grep SUPABASE .env.local` (secret); `supabase db push` rejected with a story",
        "wrap-up with what was not done; todo the user takes and a question for a colleague",
    ],
    "language": "es",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["migration new", "migración"], ["dashboard"]],
         "note": "Las policies van siempre por migración (supabase migration new), nunca a mano en el dashboard."},
        {"id": "b1", "type": "bug_note",
         "match": [["pedidos_select_dueno", "solo el dueño", "miembros"], ["vendedor", "empleados", "vacía"]],
         "note": "Los empleados veían la lista de pedidos vacía: la única policy de SELECT de pedidos era la del dueño; miembros nunca se agregó."},
        {"id": "b2", "type": "bug_note",
         "match": [["infinite recursion", "42P17", "recursión"], ["miembros_select", "miembros"]],
         "note": "miembros_select se consultaba a sí misma; en cuanto otra policy lee miembros, Postgres da 42P17 infinite recursion."},
        {"id": "f1", "type": "failed_attempt",
         "match": [["user_id = auth.uid()"], ["Equipo", "Nico"]],
         "note": "miembros_select con user_id = auth.uid() quita la recursión pero cada miembro solo se ve a sí mismo; Nico saca la RPC equipo_tienda y Equipo leerá miembros directo: descartado."},
        {"id": "d1", "type": "decision",
         "match": [["es_miembro", "SECURITY DEFINER"], ["token", "baja", "vence"]],
         "note": "Membresía vía private.es_miembro() SECURITY DEFINER y no claims en el JWT: una baja tiene que cortar el acceso ya, no cuando vence el token (1 hora)."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["db push"], ["CI", "main"]],
         "note": "Nada de supabase db push desde la máquina: el CI aplica las migraciones al mergear a main (una vez quedó el historial desincronizado)."},
        {"id": "t1", "type": "todo",
         "match": [["índice"], ["mañana", "miembros"]],
         "note": "Mateo agrega mañana un índice en miembros(user_id) en otra migración."},
        {"id": "q1", "type": "open_question",
         "match": [["lector"], ["montos"], ["Lucía"]],
         "note": "¿Los miembros con rol lector deben ver los montos de los pedidos? Lo decide Lucía."},
        {"id": "x1", "type": "todo", "types": ["todo", "open_question", "project_fact"], "required": False,
         "match": [["UPDATE"], ["dueño"]],
         "note": "Las policies de UPDATE/DELETE de pedidos siguen siendo solo del dueño."},
        {"id": "v1", "type": "verified_command", "command": "supabase db reset && supabase test db"},
    ],
    "secrets": [SERVICE_KEY],
    "forbidden": [["doesn't want to proceed"], ["User has answered"]],
}
