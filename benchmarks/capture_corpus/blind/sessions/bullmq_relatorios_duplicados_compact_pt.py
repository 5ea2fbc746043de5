# ruff: noqa: E501  (verbatim command output and file contents)
"""Node/BullMQ worker sends closing reports twice: synchronous pdfmake layout blocks the event loop, lock expires, job stalls and reruns; lockDuration tried and refused; KEYS on shared staging Redis rejected; AskUserQuestion: worker threads; sandboxed .ts processor failing mid vitest output; compaction; dedupe table (Brazilian Portuguese)."""

from make_sessions import Session

WORKER_TS = '''import { Worker } from 'bullmq';
import { connection } from '../redis';
import { gerarRelatorioFechamento } from '../relatorios/fechamento';
import { enviarNotificacao } from '../notificacoes';
import { logger } from '../logger';

export const worker = new Worker(
  'relatorios',
  async (job) => {
    const { clienteId, competencia } = job.data as { clienteId: string; competencia: string };
    logger.info({ jobId: job.id, clienteId, competencia }, 'gerando relatório de fechamento');
    const pdf = await gerarRelatorioFechamento(clienteId, competencia);
    await enviarNotificacao({ clienteId, template: 'fechamento-mensal', anexo: pdf });
  },
  { connection, concurrency: 2, lockDuration: 30_000 },
);

worker.on('failed', (job, err) => logger.error({ jobId: job?.id, err }, 'relatório falhou'));
'''

FECHAMENTO_TS = '''import PdfPrinter from 'pdfmake';
import { db } from '../db';
import { fontes } from './fontes';
import { tabelaLancamentos } from './layout';

const printer = new PdfPrinter(fontes);

export async function gerarRelatorioFechamento(clienteId: string, competencia: string): Promise<Buffer> {
  const lancamentos = await db.lancamento.findMany({
    where: { clienteId, competencia },
    orderBy: { data: 'asc' },
  });
  // layout do pdfmake é síncrono: com 80k lançamentos leva minutos
  const doc = printer.createPdfKitDocument({
    content: [tabelaLancamentos(lancamentos)],
    defaultStyle: { font: 'Inter', fontSize: 7 },
  });
  return streamParaBuffer(doc);
}

function streamParaBuffer(doc: PDFKit.PDFDocument): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const partes: Buffer[] = [];
    doc.on('data', (p: Buffer) => partes.push(p));
    doc.on('end', () => resolve(Buffer.concat(partes)));
    doc.on('error', reject);
    doc.end();
  });
}
'''

NOTIF_TS = '''import { Queue } from 'bullmq';
import { connection } from './redis';

// todo e-mail sai pelo serviço de notificações (fila notificacoes), que cuida de SMTP, bounce e opt-out
const fila = new Queue('notificacoes', { connection });

export async function enviarNotificacao(n: { clienteId: string; template: string; anexo?: Buffer }) {
  await fila.add('email', { ...n, anexo: n.anexo?.toString('base64') });
}
'''

SUMMARY = '''Summary:
1. Primary Request and Intent: Fernanda (api-financeiro, Node 20, TypeScript, BullMQ 5, Prisma) reports closing reports (relatório de fechamento) going out 2-3 times to the same customer. Rules from her: e-mails only through the notificacoes queue (never SMTP directly); no KEYS (or any heavy command) on the staging Redis — it's an ElastiCache shared with the app's sessions; look via bull-board or SCAN.
2. Key Technical Concepts: BullMQ lock (lockDuration, renewed by a timer on the worker's event loop), stalled-job checker moving jobs back to wait, maxStalledCount, sandboxed processors (processor file path; useWorkerThreads), pdfmake createPdfKitDocument (synchronous layout), monitorEventLoopDelay.
3. Files and Code Sections:
   - src/workers/relatorios.ts: Worker('relatorios', inline processor, concurrency 2, lockDuration 30_000).
   - src/relatorios/fechamento.ts: pdfmake layout synchronous; Unimed-size customers (~80k lançamentos) take ~12 min.
   - scripts/medir-loop.ts (new, local only): measured event loop delay while generating a big report: max 41.3 s blocked.
   - Logs (kubectl, staging): "job stalled" for the same jobIds, then "gerando relatório" again on the other pod.
4. Errors and fixes:
   - Cause: while pdfmake lays out, the event loop is blocked, the lock is never renewed, the other pod's stalled checker moves the job back and runs it again -> second e-mail.
   - lockDuration raised to 15 min: Fernanda refused — she had already tried 5 min in staging last week and it still duplicated (12-min reports), and a dead pod would hold jobs 15 min. Reverted.
   - Tried `redis-cli ... KEYS 'bull:relatorios:*'` on staging: rejected (see rules).
   - AskUserQuestion answered: sandboxed processor in worker threads, not child processes — "o pod tem 512 MB, processo filho por job carrega outro node inteiro".
5. Pending Tasks: (1) move the processor to src/processors/relatorio.ts, Worker gets the file path + useWorkerThreads: true; (2) dedupe before sending: table envios_relatorio (cliente_id, competencia) unique, insert ... on conflict do nothing, only send if inserted; (3) tests (vitest) + typecheck + lint.
6. Current Work: about to create src/processors/relatorio.ts.'''


def build() -> Session:
    s = Session("bullmq-relatorios-duplicados-compact-pt", cwd="/home/fernanda/dev/api-financeiro", branch="fix/relatorio-duplicado",
                start="2026-07-03T11:20:55.048Z", version="2.1.50", slug="bullmq-stalled-sandbox")
    s.user(
        "cliente reclamando de novo q recebeu o relatório de fechamento 2x, a Unimed recebeu 3x. é o worker de relatorios (bullmq). "
        "acha o pq. lembrando: email só sai pela fila de notificacoes, nunca smtp direto",
        wait=8,
    )
    s.todo([
        ("Entender o fluxo do worker de relatórios", "in_progress", "Entendendo o fluxo do worker"),
        ("Achar a causa da duplicação nos logs de staging", "pending", "Procurando a causa nos logs"),
        ("Corrigir", "pending", "Corrigindo"),
        ("Testes, typecheck e lint", "pending", "Rodando testes, typecheck e lint"),
    ])
    s.glob("src/**/*.ts", ["src/workers/relatorios.ts", "src/workers/index.ts", "src/relatorios/fechamento.ts", "src/relatorios/layout.ts",
                           "src/relatorios/fontes.ts", "src/notificacoes.ts", "src/redis.ts", "src/db.ts", "src/logger.ts"])
    s.call(s.read_call("src/workers/relatorios.ts", WORKER_TS), s.read_call("src/relatorios/fechamento.ts", FECHAMENTO_TS),
           s.read_call("src/notificacoes.ts", NOTIF_TS))
    s.call(s.read_call("src/workers/index.ts", '''import './relatorios';
import './cobrancas';
import { logger } from '../logger';

logger.info('workers iniciados');
'''), s.read_call("src/redis.ts", '''import IORedis from 'ioredis';

export const connection = new IORedis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
'''))
    s.call(s.read_call("src/relatorios/layout.ts", '''import type { Lancamento } from '@prisma/client';

const brl = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });

export function tabelaLancamentos(ls: Lancamento[]) {
  return {
    table: {
      headerRows: 1,
      widths: [50, '*', 70],
      body: [
        ['Data', 'Descrição', 'Valor'],
        ...ls.map((l) => [l.data.toLocaleDateString('pt-BR'), l.descricao, brl.format(l.valorCentavos / 100)]),
      ],
    },
    layout: 'lightHorizontalLines',
  };
}
'''), s.read_call("src/db.ts", '''import { PrismaClient } from '@prisma/client';

export const db = new PrismaClient();
'''))
    s.grep("new Worker\\(", content='''src/workers/relatorios.ts:7:export const worker = new Worker(
src/workers/cobrancas.ts:9:export const worker = new Worker(''', path="src")
    s.bash("cat package.json | jq '{bullmq: .dependencies.bullmq, pdfmake: .dependencies.pdfmake, node: .engines.node}' && git log --oneline -5 -- src/workers src/relatorios", '''{
  "bullmq": "^5.8.3",
  "pdfmake": "^0.2.10",
  "node": ">=20"
}
e91b2c4 relatorios: fonte Inter e tabela de lançamentos em 7pt
3d07a18 workers: concurrency 2 nos relatórios
a4c6f52 relatorios: envio via fila de notificações''', desc="Versões e histórico do worker")
    s.bash("kubectl -n financeiro-staging get deploy -l app=api-financeiro-worker -o custom-columns=NAME:.metadata.name,REPLICAS:.spec.replicas,MEM:.spec.template.spec.containers[0].resources.limits.memory",
           '''NAME                    REPLICAS   MEM
api-financeiro-worker   2          512Mi''', desc="Réplicas e memória do worker em staging (leitura)")
    s.todo([
        ("Entender o fluxo do worker de relatórios", "completed", "Entendendo o fluxo do worker"),
        ("Achar a causa da duplicação nos logs de staging", "in_progress", "Procurando a causa nos logs"),
        ("Corrigir", "pending", "Corrigindo"),
        ("Testes, typecheck e lint", "pending", "Rodando testes, typecheck e lint"),
    ])
    s.bash("kubectl -n financeiro-staging logs -l app=api-financeiro-worker --since=48h --prefix | grep -E 'stalled|gerando relatório' | grep -E 'jobId\":\"(8812|8813)' | cut -c1-210",
           '''[pod/api-financeiro-worker-7c9f6-kq2lx/worker] {"level":30,"time":1751446802114,"jobId":"8812","clienteId":"unimed-rec","competencia":"2026-06","msg":"gerando relatório de fechamento"}
[pod/api-financeiro-worker-7c9f6-zt8mw/worker] {"level":40,"time":1751446863020,"jobId":"8812","msg":"job stalled"}
[pod/api-financeiro-worker-7c9f6-zt8mw/worker] {"level":30,"time":1751446863391,"jobId":"8812","clienteId":"unimed-rec","competencia":"2026-06","msg":"gerando relatório de fechamento"}
[pod/api-financeiro-worker-7c9f6-kq2lx/worker] {"level":40,"time":1751446925447,"jobId":"8812","msg":"job stalled"}
[pod/api-financeiro-worker-7c9f6-kq2lx/worker] {"level":30,"time":1751446925702,"jobId":"8812","clienteId":"unimed-rec","competencia":"2026-06","msg":"gerando relatório de fechamento"}
[pod/api-financeiro-worker-7c9f6-zt8mw/worker] {"level":30,"time":1751446813027,"jobId":"8813","clienteId":"padaria-boa-vista","competencia":"2026-06","msg":"gerando relatório de fechamento"}''', desc="Logs de stalled nos pods de staging (leitura)", secs=6)
    s.say(
        "Aí está: o job 8812 (Unimed) começa no pod `kq2lx`, **~60 s depois o outro pod marca como `stalled`** e começa a "
        "gerar de novo, e depois mais uma vez — 3 gerações, 3 e-mails. O 8813 (cliente pequeno) roda uma vez só.\n\n"
        "No BullMQ o worker renova o lock do job por um timer no event loop. O `createPdfKitDocument` do pdfmake faz o layout "
        "**de forma síncrona** — se isso travar o event loop por mais que `lockDuration` (30 s), o lock expira, o verificador "
        "de stalled do outro pod devolve o job pra fila e ele roda de novo. Vou medir o quanto o loop fica travado num relatório grande, localmente:"
    )
    s.bash("grep -nE 'stalledInterval|maxStalledCount' node_modules/bullmq/dist/cjs/classes/worker.js | head -4", '''118:            stalledInterval: 30000,
119:            maxStalledCount: 1,
742:    async startStalledCheckTimer() {
751:                    this.opts.stalledInterval);''', desc="Padrões de stalled no BullMQ instalado")
    s.write("scripts/medir-loop.ts", '''import { monitorEventLoopDelay } from 'node:perf_hooks';
import { gerarRelatorioFechamento } from '../src/relatorios/fechamento';

// uso local: npx tsx scripts/medir-loop.ts <clienteId> <competencia>  (banco local com dump anonimizado)
const h = monitorEventLoopDelay({ resolution: 20 });
h.enable();
const t0 = Date.now();
await gerarRelatorioFechamento(process.argv[2], process.argv[3]);
h.disable();
console.log(`total ${((Date.now() - t0) / 1000).toFixed(1)}s, loop max ${(h.max / 1e9).toFixed(1)}s, p99 ${(h.percentile(99) / 1e9).toFixed(1)}s`);
''')
    s.bash("DATABASE_URL=postgres://fin:fin@localhost:5434/financeiro npx tsx scripts/medir-loop.ts unimed-rec 2026-06", '''total 702.8s, loop max 41.3s, p99 41.3s''', desc="Medir bloqueio do event loop (banco local)", secs=710, timeout=900000)
    s.say(
        "Confirmado: 11,7 min de geração, com o event loop **travado por até 41 s seguidos** — bem acima dos 30 s do lock.\n\n"
        "Correção mínima: `lockDuration` bem maior que o maior bloqueio, p.ex. 15 min:"
    )
    s.edit("src/workers/relatorios.ts", '''  { connection, concurrency: 2, lockDuration: 30_000 },''', '''  { connection, concurrency: 2, lockDuration: 15 * 60_000 },''')
    s.turn_end()
    s.user(
        "não, lockDuration eu já subi pra 5 min semana passada em staging e duplicou igual, o da unimed leva 12 min. "
        "e 15 min é ruim, se o pod morrer o job fica preso 15 min. tem q tirar esse pdf do event loop",
        wait=60,
    )
    s.think("She already tried lockDuration 5 min; a 12-min job with a 41 s blocking stretch... the lock renewal still can't fire while blocked, and any fixed value is a guess. Revert and move the CPU work off the main thread. Also dedupe for crash between send and complete.")
    s.edit("src/workers/relatorios.ts", '''  { connection, concurrency: 2, lockDuration: 15 * 60_000 },''', '''  { connection, concurrency: 2, lockDuration: 30_000 },''')
    s.say("Revertido. Antes de mudar, quero ver quantos jobs de relatório estão hoje em stalled/ativos no Redis de staging:")
    s.bash_rejected("redis-cli -u \"$REDIS_URL_STAGING\" --scan --pattern 'bull:relatorios:*' | head; redis-cli -u \"$REDIS_URL_STAGING\" KEYS 'bull:relatorios:*' | wc -l",
                    desc="Contar chaves de relatórios no Redis de staging",
                    reason="KEYS no redis de staging não!! é o elasticache compartilhado com as sessões do app, KEYS trava tudo. se quiser ver a fila olha no bull-board")
    s.say("Entendido, nada de comandos no Redis compartilhado. Os logs já bastam.")
    q = "O processor de relatórios vai para um sandbox. Em worker threads ou processos filhos?"
    s.ask(
        [{"question": q, "header": "Sandbox",
          "options": [("Worker threads", "useWorkerThreads: true; mesma memória de processo, isolados por thread"),
                      ("Processos filhos", "padrão do BullMQ: um processo node por job em execução")]}],
        {q: "worker threads. o pod tem 512MB, processo filho por job carrega outro node inteiro"},
    )
    s.say(
        "Worker threads, então. Além do sandbox, quero um **dedupe no envio**: mesmo com o lock renovado, se o pod morrer "
        "entre enviar e completar o job, ele roda de novo. Tabela `envios_relatorio` com `(cliente_id, competencia)` único; "
        "só enfileira a notificação se o insert entrou."
    )
    s.turn_end()
    s.user("manda ver. aproveita e vê se o worker de cobranças tem o mesmo problema", wait=15)
    s.read("src/workers/cobrancas.ts", '''import { Worker } from 'bullmq';
import { connection } from '../redis';
import { gateway } from '../gateway';

// cobrança recorrente: uma chamada HTTP ao gateway por job (~300 ms)
export const worker = new Worker(
  'cobrancas',
  async (job) => gateway.cobrar(job.data.assinaturaId, job.data.valorCentavos),
  { connection, concurrency: 10 },
);
''')
    s.say("Cobranças não: cada job é uma chamada HTTP de ~300 ms, tudo assíncrono, nada de CPU travando o loop. Só o de relatórios. Sigo com o sandbox e o dedupe.")
    s.compact(SUMMARY, pre_tokens=158231)
    s.todo([
        ("Entender o fluxo do worker de relatórios", "completed", "Entendendo o fluxo do worker"),
        ("Achar a causa da duplicação nos logs de staging", "completed", "Procurando a causa nos logs"),
        ("Processor sandboxed (worker threads)", "in_progress", "Movendo o processor para um sandbox"),
        ("Dedupe por (cliente, competência) antes de enviar", "pending", "Adicionando o dedupe"),
        ("Testes, typecheck e lint", "pending", "Rodando testes, typecheck e lint"),
    ])
    s.write("src/processors/relatorio.ts", '''import type { SandboxedJob } from 'bullmq';
import { gerarRelatorioFechamento } from '../relatorios/fechamento';
import { enviarNotificacao } from '../notificacoes';
import { registrarEnvio } from '../relatorios/envios';
import { logger } from '../logger';

// Roda numa worker thread (useWorkerThreads): o layout síncrono do pdfmake trava esta thread,
// não o event loop do worker principal, que continua renovando o lock.
export default async function (job: SandboxedJob) {
  const { clienteId, competencia } = job.data as { clienteId: string; competencia: string };
  logger.info({ jobId: job.id, clienteId, competencia }, 'gerando relatório de fechamento');
  const pdf = await gerarRelatorioFechamento(clienteId, competencia);
  if (!(await registrarEnvio(clienteId, competencia))) {
    logger.warn({ jobId: job.id, clienteId, competencia }, 'relatório já enviado, pulando');
    return;
  }
  await enviarNotificacao({ clienteId, template: 'fechamento-mensal', anexo: pdf });
}
''')
    s.write("src/relatorios/envios.ts", '''import { db } from '../db';

/** true se este é o primeiro envio de (cliente, competência); false se já foi enviado. */
export async function registrarEnvio(clienteId: string, competencia: string): Promise<boolean> {
  const n = await db.$executeRaw`
    INSERT INTO envios_relatorio (cliente_id, competencia, enviado_em)
    VALUES (${clienteId}, ${competencia}, now())
    ON CONFLICT (cliente_id, competencia) DO NOTHING`;
  return n === 1;
}
''')
    s.write("prisma/migrations/20260703140000_envios_relatorio/migration.sql", '''CREATE TABLE envios_relatorio (
  cliente_id  text        NOT NULL,
  competencia text        NOT NULL,
  enviado_em  timestamptz NOT NULL,
  PRIMARY KEY (cliente_id, competencia)
);
''')
    s.read("prisma/schema.prisma", '''generator client {
  provider = "prisma-client-js"
}

datasource db {
  provider = "postgresql"
  url      = env("DATABASE_URL")
}

model Lancamento {
  id          String   @id @default(cuid())
  clienteId   String
  competencia String
  data        DateTime
  descricao   String
  valorCentavos Int

  @@index([clienteId, competencia])
}
''')
    s.edit("prisma/schema.prisma", '''  @@index([clienteId, competencia])
}
''', '''  @@index([clienteId, competencia])
}

model EnvioRelatorio {
  clienteId   String   @map("cliente_id")
  competencia String
  enviadoEm   DateTime @map("enviado_em")

  @@id([clienteId, competencia])
  @@map("envios_relatorio")
}
''')
    s.write("src/workers/relatorios.ts", '''import path from 'node:path';
import { Worker } from 'bullmq';
import { connection } from '../redis';
import { logger } from '../logger';

// Processor em worker thread: o layout do pdfmake trava a thread por até ~40 s; no event loop
// principal isso impedia a renovação do lock (lockDuration 30 s) e o job era reprocessado (e-mail duplicado).
const processor = path.join(__dirname, '../processors/relatorio.ts');

export const worker = new Worker('relatorios', processor, {
  connection,
  concurrency: 2,
  lockDuration: 30_000,
  useWorkerThreads: true,
});

worker.on('failed', (job, err) => logger.error({ jobId: job?.id, err }, 'relatório falhou'));
''')
    s.todo([
        ("Entender o fluxo do worker de relatórios", "completed", "Entendendo o fluxo do worker"),
        ("Achar a causa da duplicação nos logs de staging", "completed", "Procurando a causa nos logs"),
        ("Processor sandboxed (worker threads)", "completed", "Movendo o processor para um sandbox"),
        ("Dedupe por (cliente, competência) antes de enviar", "completed", "Adicionando o dedupe"),
        ("Testes, typecheck e lint", "in_progress", "Rodando testes, typecheck e lint"),
    ])
    s.bash("npx prisma migrate dev --name envios_relatorio --skip-seed", '''Environment variables loaded from .env
Prisma schema loaded from prisma/schema.prisma
Datasource "db": PostgreSQL database "financeiro", schema "public" at "localhost:5434"

Applying migration `20260703140000_envios_relatorio`

The following migration(s) have been applied:

migrations/
  └─ 20260703140000_envios_relatorio/
    └─ migration.sql

Your database is now in sync with your schema.

✔ Generated Prisma Client (v5.16.1) to ./node_modules/@prisma/client in 142ms''', desc="Migração no banco local", secs=8)
    s.bash("npx prisma migrate status", '''Environment variables loaded from .env
Prisma schema loaded from prisma/schema.prisma
Datasource "db": PostgreSQL database "financeiro", schema "public" at "localhost:5434"

7 migrations found in prisma/migrations

Database schema is up to date!''', desc="Estado das migrações (local)")
    s.write("test/relatorios.worker.test.ts", '''import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { Queue, QueueEvents } from 'bullmq';
import { connection } from '../src/redis';
import { filaNotificacoes, limparBanco, semearLancamentos } from './helpers';

describe('worker de relatórios', () => {
  beforeAll(async () => {
    await limparBanco();
    await semearLancamentos('cliente-grande', '2026-06', 30_000);
  });
  afterAll(async () => connection.quit());

  it('não reprocessa job longo nem envia duas vezes', async () => {
    const { worker } = await import('../src/workers/relatorios');
    const fila = new Queue('relatorios', { connection });
    const eventos = new QueueEvents('relatorios', { connection });
    let stalled = 0;
    eventos.on('stalled', () => stalled++);
    const job = await fila.add('fechamento', { clienteId: 'cliente-grande', competencia: '2026-06' });
    await job.waitUntilFinished(eventos, 240_000);
    expect(stalled).toBe(0);
    expect(await filaNotificacoes.count()).toBe(1);
    await worker.close();
  }, 300_000);

  it('segundo job da mesma competência não envia de novo', async () => {
    const { worker } = await import('../src/workers/relatorios');
    const fila = new Queue('relatorios', { connection });
    const eventos = new QueueEvents('relatorios', { connection });
    const job = await fila.add('fechamento', { clienteId: 'cliente-grande', competencia: '2026-06' });
    await job.waitUntilFinished(eventos, 240_000);
    expect(await filaNotificacoes.count()).toBe(1);
    await worker.close();
  }, 300_000);
});
''')
    s.bash("npx tsc --noEmit", '''test/relatorios.worker.test.ts(4,10): error TS2305: Module '"./helpers"' has no exported member 'filaNotificacoes'.''', code=2, desc="Typecheck", secs=14)
    s.read("test/helpers.ts", '''import { db } from '../src/db';

export async function limparBanco() {
  await db.$executeRaw`TRUNCATE lancamento, envios_relatorio`;
}

export async function semearLancamentos(clienteId: string, competencia: string, n: number) {
  const data = new Date(`${competencia}-15T12:00:00Z`);
  await db.lancamento.createMany({
    data: Array.from({ length: n }, (_, i) => ({ clienteId, competencia, data, descricao: `lançamento ${i}`, valorCentavos: 1000 + i })),
  });
}
''')
    s.edit("test/helpers.ts", '''import { db } from '../src/db';
''', '''import { Queue } from 'bullmq';
import { db } from '../src/db';
import { connection } from '../src/redis';

// o teste só olha quantas notificações foram enfileiradas (o serviço de notificações não roda aqui)
export const filaNotificacoes = {
  fila: new Queue('notificacoes', { connection }),
  count() {
    return this.fila.getJobCountByTypes('waiting', 'delayed', 'active', 'completed');
  },
};
''')
    s.bash("npx tsc --noEmit && npx prisma validate", '''Environment variables loaded from .env
Prisma schema loaded from prisma/schema.prisma
The schema at prisma/schema.prisma is valid 🚀''', desc="Typecheck + schema", secs=16)
    s.bash("npx vitest run test/relatorios.worker.test.ts", ''' RUN  v1.6.0 /home/fernanda/dev/api-financeiro

stderr | test/relatorios.worker.test.ts > worker de relatórios > não reprocessa job longo nem envia duas vezes
{"level":50,"time":1751552911804,"jobId":"1","err":{"type":"Error","message":"Unknown file extension \\".ts\\" for /home/fernanda/dev/api-financeiro/src/processors/relatorio.ts","stack":"TypeError [ERR_UNKNOWN_FILE_EXTENSION]: Unknown file extension \\".ts\\" for /home/fernanda/dev/api-financeiro/src/processors/relatorio.ts\\n    at Object.getFileProtocolModuleFormat [as file:] (node:internal/modules/esm/get_format:218:9)\\n    at defaultGetFormat (node:internal/modules/esm/get_format:244:36)\\n    at defaultLoad (node:internal/modules/esm/load:122:22)\\n    at async ModuleLoader.load (node:internal/modules/esm/loader:567:7)\\n    at async ModuleLoader.moduleProvider (node:internal/modules/esm/loader:447:45)","code":"ERR_UNKNOWN_FILE_EXTENSION"},"msg":"relatório falhou"}

 ❯ test/relatorios.worker.test.ts  (2 tests | 2 failed) 3812ms
   × worker de relatórios > não reprocessa job longo nem envia duas vezes 2204ms
     → Job 1 failed: Unknown file extension ".ts" for /home/fernanda/dev/api-financeiro/src/processors/relatorio.ts
   × worker de relatórios > segundo job da mesma competência não envia de novo 1588ms
     → Job 2 failed: Unknown file extension ".ts" for /home/fernanda/dev/api-financeiro/src/processors/relatorio.ts

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯ Failed Tests 2 ⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯

 FAIL  test/relatorios.worker.test.ts > worker de relatórios > não reprocessa job longo nem envia duas vezes
Error: Job 1 failed: Unknown file extension ".ts" for /home/fernanda/dev/api-financeiro/src/processors/relatorio.ts
 ❯ Job.waitUntilFinished node_modules/bullmq/dist/cjs/classes/job.js:1004:27
 ❯ test/relatorios.worker.test.ts:19:5

 FAIL  test/relatorios.worker.test.ts > worker de relatórios > segundo job da mesma competência não envia de novo
Error: Job 2 failed: Unknown file extension ".ts" for /home/fernanda/dev/api-financeiro/src/processors/relatorio.ts

 Test Files  1 failed (1)
      Tests  2 failed (2)
   Start at  11:48:29
   Duration  5.41s''', code=1, desc="Teste do worker", secs=12)
    s.say(
        "O erro que importa está no meio do log: `ERR_UNKNOWN_FILE_EXTENSION` para `relatorio.ts`. O vitest transpila o código "
        "do teste, mas a worker thread do BullMQ carrega o arquivo do processor direto com o Node — e o Node não roda `.ts`. "
        "Em produção já seria `dist/processors/relatorio.js` (o build roda `tsc`). Então o processor aponta sempre para o JS "
        "compilado, e o teste compila antes:"
    )
    s.read("package.json", '''{
  "name": "api-financeiro",
  "version": "3.12.0",
  "private": true,
  "engines": { "node": ">=20" },
  "scripts": {
    "build": "tsc -p tsconfig.build.json",
    "start:api": "node dist/api/index.js",
    "start:workers": "node dist/workers/index.js",
    "test": "vitest run",
    "typecheck": "tsc --noEmit",
    "lint": "eslint src test --max-warnings=0"
  }
}''', limit=None)
    s.edit("src/workers/relatorios.ts", '''const processor = path.join(__dirname, '../processors/relatorio.ts');''', '''// Sempre o JS compilado: a worker thread carrega o arquivo direto no Node, que não executa .ts.
const processor = path.resolve(__dirname, '../../dist/processors/relatorio.js');''')
    s.edit("package.json", '''    "test": "vitest run",''', '''    "pretest": "npm run build",
    "test": "vitest run",''')
    s.bash("npm test -- test/relatorios.worker.test.ts", '''
> api-financeiro@3.12.0 pretest
> npm run build


> api-financeiro@3.12.0 build
> tsc -p tsconfig.build.json


> api-financeiro@3.12.0 test
> vitest run test/relatorios.worker.test.ts


 RUN  v1.6.0 /home/fernanda/dev/api-financeiro

 ✓ test/relatorios.worker.test.ts  (2 tests) 187402ms
   ✓ worker de relatórios > não reprocessa job longo nem envia duas vezes 121877ms
   ✓ worker de relatórios > segundo job da mesma competência não envia de novo 65281ms

 Test Files  1 passed (1)
      Tests  2 passed (2)
   Start at  11:55:02
   Duration  189.13s''', desc="Build + teste do worker", secs=200, timeout=400000)
    s.say("Os dois passam: o job de 2 min com 30 mil lançamentos não teve nenhum `stalled` e saiu uma notificação só. Agora a suíte inteira, typecheck e lint:")
    s.bash("npm test && npm run typecheck && npm run lint", '''
> api-financeiro@3.12.0 pretest
> npm run build


> api-financeiro@3.12.0 build
> tsc -p tsconfig.build.json


> api-financeiro@3.12.0 test
> vitest run


 RUN  v1.6.0 /home/fernanda/dev/api-financeiro

 ✓ test/cobrancas.test.ts  (14 tests) 2311ms
 ✓ test/notificacoes.test.ts  (5 tests) 402ms
 ✓ test/relatorios.layout.test.ts  (9 tests) 1876ms
 ✓ test/relatorios.worker.test.ts  (2 tests) 186911ms

 Test Files  4 passed (4)
      Tests  30 passed (30)
   Start at  11:59:40
   Duration  192.04s


> api-financeiro@3.12.0 typecheck
> tsc --noEmit


> api-financeiro@3.12.0 lint
> eslint src test --max-warnings=0
''', desc="Suíte completa, typecheck e lint", secs=210, timeout=400000)
    s.bash("cat Dockerfile | grep -nE 'COPY|RUN npm|CMD'", '''8:COPY package*.json ./
9:RUN npm ci
10:COPY . .
11:RUN npm run build
14:CMD ["node", "dist/workers/index.js"]''', desc="A imagem já compila para dist/?")
    s.bash("npm run build && ls dist/processors/", '''
> api-financeiro@3.12.0 build
> tsc -p tsconfig.build.json

relatorio.js
relatorio.js.map''', desc="Build e conferir o processor compilado")
    s.say("A imagem já roda `npm run build` e executa de `dist/`, então o caminho `dist/processors/relatorio.js` existe em produção.")
    s.bash("git diff --stat && git status --short | grep '^??'", ''' package.json                 |  1 +
 prisma/schema.prisma         |  9 +++++++++
 src/workers/relatorios.ts    | 30 +++++++++++++-----------------
 test/helpers.ts              | 11 +++++++++++
 4 files changed, 34 insertions(+), 17 deletions(-)
?? prisma/migrations/20260703140000_envios_relatorio/
?? scripts/medir-loop.ts
?? src/processors/
?? src/relatorios/envios.ts
?? test/relatorios.worker.test.ts''', desc="O que mudou")
    s.bash("rm scripts/medir-loop.ts && git add -A && git commit -qm 'relatorios: processor em worker thread (pdfmake travava o lock) + dedupe por cliente/competência' && git log --oneline -1",
           "7f3e0a9 relatorios: processor em worker thread (pdfmake travava o lock) + dedupe por cliente/competência", desc="Commit")
    s.todo([
        ("Entender o fluxo do worker de relatórios", "completed", "Entendendo o fluxo do worker"),
        ("Achar a causa da duplicação nos logs de staging", "completed", "Procurando a causa nos logs"),
        ("Processor sandboxed (worker threads)", "completed", "Movendo o processor para um sandbox"),
        ("Dedupe por (cliente, competência) antes de enviar", "completed", "Adicionando o dedupe"),
        ("Testes, typecheck e lint", "completed", "Rodando testes, typecheck e lint"),
    ])
    s.say(
        "Resumo:\n\n"
        "- **Causa:** o layout do pdfmake é síncrono e travava o event loop do worker por até 41 s; o lock (30 s) não era "
        "renovado, o outro pod marcava o job como `stalled` e gerava de novo → 2–3 e-mails.\n"
        "- **Descartado:** subir `lockDuration` (5 min já falhou em staging; com 15 min um pod morto prende o job).\n"
        "- **Feito:** processor em `src/processors/relatorio.ts` rodando em **worker thread** (`useWorkerThreads`), apontando "
        "para o JS compilado em `dist/` (worker thread não roda `.ts`; `pretest` compila). Dedupe em `envios_relatorio` "
        "(PK cliente + competência, `ON CONFLICT DO NOTHING`) antes de enfileirar a notificação.\n"
        "- 30 testes, typecheck e lint ok. Migração aplicada só no banco local.\n\n"
        "Ponto de atenção: se precisar reenviar um relatório de propósito (cliente pediu de novo), agora é preciso apagar a "
        "linha em `envios_relatorio` antes."
    )
    s.turn_end()
    s.user(
        "show. deploy só segunda, sexta não subo nada. o reenvio manual o suporte usa toda semana, vou ver com o Thiago se vira um botão no backoffice "
        "que apaga a linha e reenfileira. e ainda tem o relatório da unimed levar 12 min, isso tb tem q ver um dia",
        wait=90,
    )
    s.say("Combinado. Para os 12 minutos, o maior custo medido foi o layout da tabela de lançamentos; paginar o PDF por semana seria o primeiro teste.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Node 20 + TypeScript + BullMQ 5 + Prisma, closing reports e-mailed 2-3 times, Brazilian Portuguese",
        "a rule in the first prompt (e-mail only through the notificacoes queue); TodoWrite plan",
        "cause from staging logs (job stalled, other pod regenerates) and a local event-loop measurement (41 s blocked by pdfmake)",
        "lockDuration 15 min tried and refused (5 min already failed in staging, dead pod holds jobs), reverted",
        "`KEYS` on the shared staging Redis rejected with a rule; AskUserQuestion: worker threads (512 MB pod)",
        "compaction; sandboxed processor + dedupe table; ERR_UNKNOWN_FILE_EXTENSION in the middle of vitest output, fixed by pointing at dist/",
        "todo (resend button with Thiago) and leftover (12-minute Unimed report), deploy Monday rule in the last message",
    ],
    "language": "pt",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["notificacoes", "notificações"], ["smtp"]],
         "note": "E-mail só sai pela fila de notificacoes, nunca SMTP direto."},
        {"id": "b1", "type": "bug_note",
         "match": [["pdfmake", "event loop"], ["lock", "stalled"]],
         "note": "Relatório duplicado: o layout síncrono do pdfmake travava o event loop (até 41 s), o lock de 30 s não era renovado, o outro pod marcava stalled e gerava de novo."},
        {"id": "f1", "type": "failed_attempt",
         "match": [["lockDuration"], ["5 min", "15 min", "duplicou"]],
         "note": "Subir lockDuration não resolve: 5 min já duplicou em staging (relatório de 12 min) e 15 min prende o job se o pod morrer."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["KEYS"], ["redis"], ["sessões", "compartilhado", "elasticache"]],
         "note": "Nada de KEYS no Redis de staging: ElastiCache compartilhado com as sessões do app; olhar a fila pelo bull-board."},
        {"id": "d1", "type": "decision",
         "match": [["worker thread", "useWorkerThreads"], ["512", "memória", "processo filho"]],
         "note": "Processor sandboxed em worker threads, não em processos filhos: o pod tem 512 MB e um processo filho por job carrega outro Node."},
        {"id": "d2", "type": "decision", "types": ["decision", "bug_note"],
         "match": [["envios_relatorio", "dedupe"], ["competência", "competencia"]],
         "note": "Dedupe antes de enviar: envios_relatorio com PK (cliente_id, competencia), ON CONFLICT DO NOTHING, só envia se inseriu."},
        {"id": "b2", "type": "bug_note",
         "match": [["ERR_UNKNOWN_FILE_EXTENSION", ".ts"], ["dist", "compilado"]],
         "note": "A worker thread carrega o processor direto no Node, que não roda .ts: apontar para dist/processors/relatorio.js e compilar antes dos testes (pretest)."},
        {"id": "c3", "type": "constraint", "types": ["constraint", "preference"], "required": False,
         "match": [["deploy"], ["segunda", "sexta"]],
         "note": "Deploy só segunda; sexta não sobe nada."},
        {"id": "t1", "type": "todo",
         "match": [["Thiago"], ["reenvio", "botão", "backoffice"]],
         "note": "Ver com o Thiago um botão no backoffice que apaga a linha de envios_relatorio e reenfileira (o suporte reenvia toda semana)."},
        {"id": "t2", "type": "todo", "required": False,
         "match": [["unimed"], ["12 min"]],
         "note": "O relatório da Unimed leva 12 min; ver um dia (paginar o PDF por semana?)."},
        {"id": "v1", "type": "verified_command", "command": "npm test && npm run typecheck && npm run lint"},
    ],
    "secrets": [],
    "forbidden": [["This session is being continued"], ["doesn't want to proceed"], ["User has answered your questions"]],
}
