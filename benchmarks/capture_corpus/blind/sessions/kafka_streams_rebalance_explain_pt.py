# ruff: noqa: E501  (verbatim command output and file contents)
"""Empty: why a Kafka Streams app rebalances on every deploy, answered read-only (Brazilian Portuguese)."""

from make_sessions import Session

PROPS = '''application.id=pedidos-enriquecimento
bootstrap.servers=${KAFKA_BOOTSTRAP}
processing.guarantee=exactly_once_v2
num.stream.threads=4
state.dir=/var/lib/kstreams
default.key.serde=org.apache.kafka.common.serialization.Serdes$StringSerde
default.value.serde=io.confluent.kafka.streams.serdes.avro.SpecificAvroSerde
commit.interval.ms=100
'''

DEPLOY = '''apiVersion: apps/v1
kind: Deployment
metadata:
  name: pedidos-enriquecimento
spec:
  replicas: 3
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 1
      maxUnavailable: 0
  template:
    spec:
      containers:
        - name: app
          image: registry.interno/pedidos-enriquecimento:1.14.2
          volumeMounts:
            - name: state
              mountPath: /var/lib/kstreams
      volumes:
        - name: state
          emptyDir: {}
'''


def build() -> Session:
    s = Session("kafka-streams-rebalance-explain-pt", cwd="/home/rafael/trabalho/pedidos-enriquecimento",
                branch="main", start="2026-10-06T18:44:30.020Z", version="2.1.71")
    s.user(
        "pergunta rápida, não é pra mexer em nada: por que toda vez que a gente faz deploy desse app "
        "de streams o lag do pedidos-enriquecimento sobe pra tipo 2 milhões e leva uns 20 min pra "
        "voltar? os outros consumers normais não fazem isso",
        wait=6,
    )
    s.call(s.read_call("src/main/resources/streams.properties", PROPS), s.read_call("k8s/deployment.yaml", DEPLOY))
    s.grep("KTable|groupByKey|aggregate|join", content='''src/main/java/br/com/loja/pedidos/Topologia.java:41:        KTable<String, Cliente> clientes = builder.table("clientes", Materialized.as("clientes-store"));
src/main/java/br/com/loja/pedidos/Topologia.java:58:            .join(clientes, EnriquecedorPedido::enriquecer)
src/main/java/br/com/loja/pedidos/Topologia.java:71:            .groupByKey()
src/main/java/br/com/loja/pedidos/Topologia.java:72:            .aggregate(ResumoDiario::vazio, ResumoDiario::somar, Materialized.as("resumo-diario-store"))''', path="src")
    s.bash("kafka-consumer-groups --bootstrap-server \"$KAFKA_BOOTSTRAP\" --describe --group pedidos-enriquecimento --members 2>&1 | head -8", '''GROUP                   CONSUMER-ID                                                                                  HOST            CLIENT-ID                                                                      #PARTITIONS
pedidos-enriquecimento  pedidos-enriquecimento-3f1c…-StreamThread-1-consumer-9a0e2c41-5b7d-4e2b-9c55-0c3f6d7e8a21   /10.42.7.19     pedidos-enriquecimento-3f1c…-StreamThread-1-consumer                            3
pedidos-enriquecimento  pedidos-enriquecimento-3f1c…-StreamThread-2-consumer-1b2c3d4e-6f70-4a8b-9cde-f01234567890   /10.42.7.19     pedidos-enriquecimento-3f1c…-StreamThread-2-consumer                            2
pedidos-enriquecimento  pedidos-enriquecimento-8e02…-StreamThread-1-consumer-0f9e8d7c-6b5a-4c3d-8e2f-1a0b9c8d7e6f   /10.42.3.77     pedidos-enriquecimento-8e02…-StreamThread-1-consumer                            3''', desc="Membros do consumer group (só leitura)")
    s.bash("kafka-topics --bootstrap-server \"$KAFKA_BOOTSTRAP\" --describe --topic pedidos-enriquecimento-clientes-store-changelog 2>&1 | head -2", '''Topic: pedidos-enriquecimento-clientes-store-changelog	TopicId: q0Zr8m1NR9-2cX3b1Lx0eA	PartitionCount: 24	ReplicationFactor: 3	Configs: cleanup.policy=compact,min.insync.replicas=2
	Topic: pedidos-enriquecimento-clientes-store-changelog	Partition: 0	Leader: 2	Replicas: 2,1,3	Isr: 2,1,3''', desc="Tópico changelog do store (só leitura)")
    s.say(
        "São duas coisas somadas, e a maior é o estado local.\n\n"
        "**1. O state store é jogado fora a cada pod novo.** A topologia tem dois stores "
        "(`clientes-store`, a KTable do join, e `resumo-diario-store`, do `aggregate`). Eles ficam "
        "em RocksDB em `state.dir=/var/lib/kstreams`, que no deployment é um `emptyDir`: morre com "
        "o pod. O pod novo precisa reconstruir os stores lendo os tópicos `…-changelog` do começo "
        "(24 partições, compactados, mas ainda assim grandes) antes de processar qualquer pedido. "
        "Nesse tempo as tarefas ficam em `RESTORING` e o lag de entrada só cresce — são os seus "
        "20 minutos. Consumers comuns não têm estado, por isso não sofrem isso.\n\n"
        "**2. Cada pod que sai e entra dispara um rebalance.** Com `RollingUpdate` e 3 réplicas são "
        "pelo menos 6 rebalances por deploy (cada saída e cada entrada), e como não há "
        "`group.instance.id` (static membership), cada membro volta com um ID novo e as tarefas "
        "podem mudar de pod — às vezes caindo num pod que também não tem o estado.\n\n"
        "O que costuma resolver, só pra contexto: StatefulSet com volume persistente no `state.dir` "
        "(o estado sobrevive ao restart, só se restaura o delta), `group.instance.id` estável por "
        "pod com `session.timeout.ms` maior que o tempo de restart, e `num.standby.replicas=1` para "
        "ter uma cópia quente em outro pod. Mas você pediu só o porquê, então não mexi em nada."
    )
    s.turn_end()
    s.user("ahh faz sentido, o emptyDir. valeu, era só curiosidade mesmo, não precisa fazer nada", wait=55)
    s.say("De nada!")
    s.turn_end()
    s.local_command("exit", "Bye!", wait=8)
    return s


GOLD = {
    "covers": [
        "empty: a read-only question about Kafka Streams lag after every deploy (state restore from changelog, rebalances)",
        "'não é pra mexer em nada' and 'era só curiosidade': nothing changed, nothing decided",
        "read-only Read/Grep and `kafka-consumer-groups`/`kafka-topics --describe` behind `| head`",
        "the agent lists what usually fixes it; the user doesn't take it up; /exit",
    ],
    "language": "pt",
    "empty": True,
    "items": [],
    "secrets": [],
    "forbidden": [],
}
