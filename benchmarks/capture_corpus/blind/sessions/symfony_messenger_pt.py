# ruff: noqa: E501  (verbatim command output and file contents)
"""Symfony Messenger on the Doctrine transport: boleto PDFs out of the request; interrupted worker (Brazilian Portuguese)."""

from make_sessions import Session

DB_PASSWORD = "tQ8vZ2rNw5LcYh3K"

CONTROLLER = '''<?php

namespace App\\Controller;

use App\\Entity\\Boleto;
use App\\Service\\BoletoPdf;
use App\\Service\\EmissorBoleto;
use Doctrine\\ORM\\EntityManagerInterface;
use Symfony\\Bundle\\FrameworkBundle\\Controller\\AbstractController;
use Symfony\\Component\\HttpFoundation\\JsonResponse;
use Symfony\\Component\\HttpFoundation\\Request;
use Symfony\\Component\\Routing\\Attribute\\Route;

final class BoletoController extends AbstractController
{
    public function __construct(
        private readonly EmissorBoleto $emissor,
        private readonly BoletoPdf $pdf,
        private readonly EntityManagerInterface $em,
    ) {
    }

    #[Route('/api/boletos', methods: ['POST'])]
    public function emitir(Request $request): JsonResponse
    {
        $boleto = $this->emissor->emitir($request->toArray());
        $this->em->persist($boleto);
        $this->em->flush();

        $boleto->setPdfPath($this->pdf->gerar($boleto));
        $this->em->flush();

        return $this->json(['id' => $boleto->getId(), 'linha_digitavel' => $boleto->getLinhaDigitavel()], 201);
    }
}
'''

MESSENGER = '''framework:
    messenger:
        # failure_transport: failed

        transports:
            # https://symfony.com/doc/current/messenger.html#transport-configuration
            # async: '%env(MESSENGER_TRANSPORT_DSN)%'
            # failed: 'doctrine://default?queue_name=failed'
            sync: 'sync://'

        routing:
            # Route your messages to the transports
            # 'App\\Message\\YourMessage': async
'''

HANDLER_V1 = '''<?php

namespace App\\MessageHandler;

use App\\Message\\GerarBoletoPdf;
use App\\Repository\\BoletoRepository;
use App\\Service\\BoletoPdf;
use Doctrine\\ORM\\EntityManagerInterface;

final class GerarBoletoPdfHandler
{
    public function __construct(
        private readonly BoletoRepository $boletos,
        private readonly BoletoPdf $pdf,
        private readonly EntityManagerInterface $em,
    ) {
    }

    public function __invoke(GerarBoletoPdf $message): void
    {
        $boleto = $this->boletos->find($message->boletoId);
        if ($boleto === null || $boleto->getPdfPath() !== null) {
            return; // cancelado entretanto, ou mensagem repetida
        }
        $boleto->setPdfPath($this->pdf->gerar($boleto));
        $this->em->flush();
    }
}
'''


def build() -> Session:
    s = Session("symfony-messenger-pt", cwd="/home/rafael/projetos/cobranca-api", branch="feature/boleto-pdf-fila",
                start="2026-03-11T18:40:11.927Z", version="2.1.50", slug="patient-queueing-toucan",
                stop_reasons=True)
    s.user(
        "Opa! A geração do PDF do boleto tá travando o POST /api/boletos — o Dompdf leva uns "
        "4 a 6 segundos e o cliente fica esperando. Quero jogar isso numa fila com o Symfony "
        "Messenger.\n\nA infra só tem Postgres: nada de RabbitMQ nem Redis. E o PHPStan roda "
        "no nível 8 no CI, tem que continuar passando.",
        wait=5,
    )
    s.call(s.read_call("src/Controller/BoletoController.php", CONTROLLER),
           s.read_call("config/packages/messenger.yaml", MESSENGER))
    s.bash("cat .env.local && composer show symfony/messenger symfony/doctrine-messenger 2>&1 | grep -E '^(name|versions)'", f"""\
APP_ENV=dev
DATABASE_URL="postgresql://cobranca:{DB_PASSWORD}@127.0.0.1:5432/cobranca?serverVersion=16&charset=utf8"
name     : symfony/messenger
versions : * v7.2.3
name     : symfony/doctrine-messenger
versions : * v7.2.3""", desc="Ambiente e pacotes do Messenger")
    s.say(
        "O `symfony/doctrine-messenger` já está instalado, então o transporte Doctrine sai de "
        "graça: a fila vira a tabela `messenger_messages` no mesmo Postgres, sem serviço "
        "novo.\n\n"
        "A mensagem vai levar só o **id** do boleto, não a entidade. Entre o dispatch e o "
        "worker o boleto pode mudar (ou ser cancelado), e uma entidade serializada é uma foto "
        "velha — além de arrastar proxies do Doctrine para dentro da fila. O handler busca o "
        "boleto de novo no banco e ignora se o PDF já existir (mensagem repetida após retry)."
    )
    s.write("src/Message/GerarBoletoPdf.php", '''<?php

namespace App\\Message;

/** Só o id: o handler relê o boleto no banco, nunca uma cópia serializada. */
final class GerarBoletoPdf
{
    public function __construct(public readonly int $boletoId)
    {
    }
}
''')
    s.write("src/MessageHandler/GerarBoletoPdfHandler.php", HANDLER_V1)
    s.edit("config/packages/messenger.yaml", '''        # failure_transport: failed

        transports:
            # https://symfony.com/doc/current/messenger.html#transport-configuration
            # async: '%env(MESSENGER_TRANSPORT_DSN)%'
            # failed: 'doctrine://default?queue_name=failed'
            sync: 'sync://'

        routing:
            # Route your messages to the transports
            # 'App\\Message\\YourMessage': async''', '''        failure_transport: failed

        transports:
            async:
                dsn: 'doctrine://default?queue_name=boletos'
                retry_strategy:
                    max_retries: 3
                    delay: 5000
                    multiplier: 3
            failed: 'doctrine://default?queue_name=failed'

        routing:
            'App\\Message\\GerarBoletoPdf': async''')
    s.edit("src/Controller/BoletoController.php", '''        $boleto->setPdfPath($this->pdf->gerar($boleto));
        $this->em->flush();

        return''', '''        $this->bus->dispatch(new GerarBoletoPdf($boleto->getId()));

        return''')
    s.edit("src/Controller/BoletoController.php", '''        private readonly BoletoPdf $pdf,
        private readonly EntityManagerInterface $em,
    ) {''', '''        private readonly EntityManagerInterface $em,
        private readonly MessageBusInterface $bus,
    ) {''')
    s.edit("src/Controller/BoletoController.php", '''use App\\Service\\BoletoPdf;
use App\\Service\\EmissorBoleto;''', '''use App\\Message\\GerarBoletoPdf;
use App\\Service\\EmissorBoleto;''')
    s.edit("src/Controller/BoletoController.php", '''use Symfony\\Component\\HttpFoundation\\Request;''', '''use Symfony\\Component\\HttpFoundation\\Request;
use Symfony\\Component\\Messenger\\MessageBusInterface;''')
    s.bash("bin/console doctrine:migrations:diff -n && bin/console doctrine:migrations:migrate -n 2>&1 | tail -3", """\
 Generated new migration class to "/home/rafael/projetos/cobranca-api/migrations/Version20260311185214.php"
 [notice] Migrating up to DoctrineMigrations\\Version20260311185214
 [notice] finished in 61.2ms, used 26M memory, 1 migrations executed, 7 sql queries""", desc="Migração da tabela messenger_messages")
    s.bash("curl -s -X POST localhost:8000/api/boletos -H 'content-type: application/json' -d @tests/fixtures/boleto.json -w '\\n%{time_total}s\\n'", """\
{"id":4182,"linha_digitavel":"23793.38128 60000.000003 00000.000400 1 98760000015000"}
0.184s""", desc="Emitir um boleto (dev)")
    s.say("O POST caiu de ~5 s para 0,18 s. Agora vejo o worker consumir a mensagem:")
    s.call(s.rejected_call("Bash", {"command": "bin/console messenger:consume async -vv",
                                    "description": "Rodar o worker"}, secs=38.0))
    s.interrupt(for_tool=True)
    s.user(
        "não roda o consume assim, sem limite ele não termina nunca e fica preso aí. usa "
        "--limit=1 ou --time-limit quando for testar na mão",
        wait=12,
    )
    s.bash("bin/console messenger:consume async --limit=1 --time-limit=30 -vv 2>&1 | tail -8", """\
 [OK] Consuming messages from transport "async".

 // The worker will automatically exit once it has processed 1 messages, been running for 30s or received a stop signal.

18:55:02 INFO      [messenger] Received message App\\Message\\GerarBoletoPdf ["class" => "App\\Message\\GerarBoletoPdf"]
18:55:02 WARNING   [messenger] Error thrown while handling message App\\Message\\GerarBoletoPdf. Sending for retry #1 using 5000 ms delay. Error: "No handler for message "App\\Message\\GerarBoletoPdf"." ["class" => "App\\Message\\GerarBoletoPdf","retryCount" => 1,"delay" => 5000,"error" => "No handler for message "App\\Message\\GerarBoletoPdf".","exception" => Symfony\\Component\\Messenger\\Exception\\NoHandlerForMessageException^ { …}]
18:55:02 INFO      [messenger] Stopping worker. ["transport_names" => ["async"]]""", desc="Worker com limite", secs=4.0)
    s.say(
        "Beleza, sempre com `--limit`/`--time-limit` daqui pra frente.\n\n"
        "E o worker achou um erro meu: `No handler for message`. O handler existe, mas "
        "esqueci o atributo `#[AsMessageHandler]` — sem ele (ou tag no `services.yaml`) o "
        "Messenger não registra a classe como handler. A mensagem voltou pra fila para "
        "retry, então o próximo consume já deve processá-la."
    )
    s.edit("src/MessageHandler/GerarBoletoPdfHandler.php", '''use Doctrine\\ORM\\EntityManagerInterface;

final class GerarBoletoPdfHandler''', '''use Doctrine\\ORM\\EntityManagerInterface;
use Symfony\\Component\\Messenger\\Attribute\\AsMessageHandler;

#[AsMessageHandler]
final class GerarBoletoPdfHandler''')
    s.bash("sleep 5 && bin/console messenger:consume async --limit=1 --time-limit=30 -vv 2>&1 | tail -4", """\
18:56:41 INFO      [messenger] Received message App\\Message\\GerarBoletoPdf ["class" => "App\\Message\\GerarBoletoPdf"]
18:56:46 INFO      [messenger] Message App\\Message\\GerarBoletoPdf handled by App\\MessageHandler\\GerarBoletoPdfHandler::__invoke ["class" => "App\\Message\\GerarBoletoPdf","handler" => "App\\MessageHandler\\GerarBoletoPdfHandler::__invoke"]
18:56:46 INFO      [messenger] App\\Message\\GerarBoletoPdf was handled successfully (acknowledging to transport). ["class" => "App\\Message\\GerarBoletoPdf","message_id" => 7]
18:56:46 INFO      [messenger] Stopping worker. ["transport_names" => ["async"]]""", desc="Worker com limite", secs=9.0)
    s.say("Processou (5 s de Dompdf, agora fora do request). Falta decidir o que o cliente vê "
          "se abrir o boleto antes de o PDF ficar pronto.")
    q = "Se o cliente abrir /boletos/{id}/pdf antes do worker terminar, o que acontece?"
    s.ask(
        [{"question": q, "header": "PDF pendente",
          "options": [("Página de espera", "HTML 'gerando seu boleto…' que recarrega a cada 3 s"),
                      ("Gerar na hora", "Se não houver PDF, gera de forma síncrona no request")]}],
        {q: "Página de espera. Nunca gerar síncrono no request, foi exatamente isso que derrubou o servidor na black friday"},
    )
    s.write("src/Controller/BoletoPdfController.php", '''<?php

namespace App\\Controller;

use App\\Entity\\Boleto;
use Symfony\\Bridge\\Doctrine\\Attribute\\MapEntity;
use Symfony\\Bundle\\FrameworkBundle\\Controller\\AbstractController;
use Symfony\\Component\\HttpFoundation\\BinaryFileResponse;
use Symfony\\Component\\HttpFoundation\\Response;
use Symfony\\Component\\Routing\\Attribute\\Route;

final class BoletoPdfController extends AbstractController
{
    // Nunca gerar o PDF aqui: geração síncrona no request derrubou o servidor na black friday.
    #[Route('/boletos/{id}/pdf', methods: ['GET'])]
    public function pdf(#[MapEntity] Boleto $boleto): Response
    {
        if ($boleto->getPdfPath() === null) {
            return $this->render('boleto/gerando.html.twig', [], new Response(status: 202, headers: ['Refresh' => '3']));
        }

        return new BinaryFileResponse($boleto->getPdfPath());
    }
}
''')
    s.write("tests/MessageHandler/GerarBoletoPdfHandlerTest.php", '''<?php

namespace App\\Tests\\MessageHandler;

use App\\Message\\GerarBoletoPdf;
use App\\MessageHandler\\GerarBoletoPdfHandler;
use App\\Tests\\Factory\\BoletoFactory;
use Symfony\\Bundle\\FrameworkBundle\\Test\\KernelTestCase;

final class GerarBoletoPdfHandlerTest extends KernelTestCase
{
    public function testGeraPdfUmaVezSo(): void
    {
        $boleto = BoletoFactory::createOne();
        $handler = self::getContainer()->get(GerarBoletoPdfHandler::class);

        $handler(new GerarBoletoPdf($boleto->getId()));
        $primeiro = $boleto->getPdfPath();
        $handler(new GerarBoletoPdf($boleto->getId()));

        self::assertFileExists($primeiro);
        self::assertSame($primeiro, $boleto->getPdfPath());
    }

    public function testIgnoraBoletoInexistente(): void
    {
        $handler = self::getContainer()->get(GerarBoletoPdfHandler::class);
        $handler(new GerarBoletoPdf(999999));
        $this->expectNotToPerformAssertions();
    }
}
''')
    s.bash("php bin/phpunit --filter GerarBoletoPdfHandlerTest 2>&1 | tail -5", """\
..                                                                  2 / 2 (100%)

Time: 00:05.912, Memory: 58.50 MB

OK (2 tests, 2 assertions)""", desc="Testes do handler", secs=9.0)
    s.bash("vendor/bin/phpstan analyse --memory-limit=1G 2>&1 | tail -12", """\
 ------ ------------------------------------------------------------------------------------------
  Line   src/Controller/BoletoController.php
 ------ ------------------------------------------------------------------------------------------
  37     Parameter #1 $boletoId of class App\\Message\\GerarBoletoPdf constructor expects int, int|null given.
         🪪  argument.type
 ------ ------------------------------------------------------------------------------------------

 [ERROR] Found 1 error""", code=1, desc="PHPStan nível 8", secs=22.0)
    s.say("O nível 8 pegou: `Boleto::getId()` é `?int` (nulo antes do flush). Aqui o flush já "
          "aconteceu, mas o PHPStan não sabe disso — deixo explícito em vez de suprimir.")
    s.edit("src/Controller/BoletoController.php", '''        $this->bus->dispatch(new GerarBoletoPdf($boleto->getId()));''',
           '''        $id = $boleto->getId() ?? throw new \\LogicException('Boleto sem id após o flush');
        $this->bus->dispatch(new GerarBoletoPdf($id));''')
    s.bash("vendor/bin/phpstan analyse --memory-limit=1G 2>&1 | tail -3", "\n [OK] No errors", desc="PHPStan nível 8", secs=20.0)
    s.bash("php bin/phpunit 2>&1 | tail -4", """\

Time: 00:31.447, Memory: 122.00 MB

OK (214 tests, 688 assertions)""", desc="Suíte completa", secs=36.0)
    s.say(
        "Pronto:\n\n"
        "- `POST /api/boletos` só emite e despacha `GerarBoletoPdf` (com o id) — 0,18 s em vez "
        "de ~5 s.\n"
        "- Fila no próprio Postgres via transporte Doctrine (`queue_name=boletos`), 3 retries "
        "com backoff 5 s/15 s/45 s, depois vai para o transporte `failed`.\n"
        "- `GET /boletos/{id}/pdf` mostra a página de espera (202 + Refresh) enquanto o PDF não "
        "existe; nunca gera no request.\n"
        "- PHPStan nível 8 e os 214 testes passando.\n\n"
        "Falta, fora do código: o worker em produção. Hoje nada roda `messenger:consume` no "
        "servidor — sem isso os boletos ficam para sempre na página de espera. Sugiro uma "
        "unit systemd com `Restart=always` e `--time-limit=3600 --memory-limit=256M`, e um "
        "`messenger:stop-workers` no deploy.\n\n"
        "E uma dúvida: quem acompanha a fila `failed`? Um boleto que falhar 3 vezes fica lá "
        "em silêncio; dá para alertar pelo tamanho da tabela, mas não sei qual ferramenta de "
        "monitoramento vocês usam."
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Symfony 7 Messenger with the Doctrine transport, Brazilian Portuguese",
        "two rules in the first prompt (Postgres only, no RabbitMQ/Redis; PHPStan level 8)",
        "database password in .env.local output (secret)",
        "a never-ending worker interrupted by the user, then a rule (--limit/--time-limit)",
        "No handler for message (missing #[AsMessageHandler]) then handled",
        "AskUserQuestion answered in free text with a rule and its reason",
        "PHPStan error (exit 1) then OK",
        "stop_reason on final blocks",
        "todo (production worker) and open question (failed queue monitoring) at the end",
    ],
    "language": "pt",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "project_fact"],
         "match": [["RabbitMQ", "Redis", "só tem Postgres"]],
         "note": "A infra só tem Postgres: nada de RabbitMQ nem Redis."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "project_fact"],
         "match": [["PHPStan"], ["nível 8", "level 8"]],
         "note": "PHPStan roda no nível 8 no CI e tem que continuar passando."},
        {"id": "d1", "type": "decision",
         "match": [["Doctrine", "messenger_messages", "queue_name"], ["Postgres", "sem serviço novo"]],
         "note": "Fila do Messenger no transporte Doctrine (tabela messenger_messages no Postgres), "
                 "sem serviço novo."},
        {"id": "d2", "type": "decision",
         "match": [["GerarBoletoPdf", "mensagem"], ["entidade", "serializada", "foto velha", "proxies"]],
         "note": "A mensagem GerarBoletoPdf leva só o id do boleto, não a entidade: entidade "
                 "serializada é uma foto velha e arrasta proxies do Doctrine; o handler relê do banco."},
        {"id": "c3", "type": "preference", "types": ["preference", "constraint"],
         "match": [["--limit", "--time-limit"], ["consume"]],
         "note": "Nunca rodar messenger:consume sem --limit/--time-limit ao testar na mão: não termina."},
        {"id": "b1", "type": "bug_note",
         "match": [["No handler for message", "AsMessageHandler"], ["GerarBoletoPdf", "handler"]],
         "note": "O worker dava 'No handler for message GerarBoletoPdf': faltava #[AsMessageHandler] "
                 "no handler."},
        {"id": "c4", "type": "constraint", "types": ["constraint", "preference", "decision"],
         "match": [["síncrono", "sincrono", "no request"], ["black friday", "página de espera"]],
         "note": "Nunca gerar o PDF de forma síncrona no request (derrubou o servidor na black "
                 "friday): sem PDF, página de espera com 202 + Refresh."},
        {"id": "b2", "type": "bug_note", "required": False,
         "match": [["getId", "int|null"], ["PHPStan", "LogicException", "flush"]],
         "note": "Boleto::getId() é ?int; PHPStan nível 8 exige tratar o null antes do dispatch."},
        {"id": "t1", "type": "todo",
         "match": [["worker"], ["produção", "systemd", "servidor"]],
         "note": "Nada roda messenger:consume em produção: criar unit systemd (Restart=always, "
                 "--time-limit=3600) e stop-workers no deploy."},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo"],
         "match": [["failed"], ["acompanha", "monitora", "alert"]],
         "note": "Quem acompanha a fila failed? Boletos que falham 3 vezes ficam lá em silêncio."},
        {"id": "v1", "type": "verified_command", "command": "php bin/phpunit --filter GerarBoletoPdfHandlerTest"},
        {"id": "v2", "type": "verified_command", "command": "vendor/bin/phpstan analyse --memory-limit=1G"},
        {"id": "v3", "type": "verified_command", "command": "php bin/phpunit"},
        {"id": "v4", "type": "verified_command", "required": False,
         "command": "bin/console messenger:consume async --limit=1 --time-limit=30 -vv"},
        {"id": "v5", "type": "verified_command", "required": False,
         "command": "sleep 5 && bin/console messenger:consume async --limit=1 --time-limit=30 -vv"},
    ],
    "secrets": [DB_PASSWORD],
    "forbidden": [["Request interrupted"], ["doesn't want to proceed"], ["User has answered"]],
}
