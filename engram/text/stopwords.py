"""Stop words per language: words removed from index and query, and words that are only
used as language-detection evidence because they carry meaning (negations, rule words)."""

from __future__ import annotations

_LANG_WORDS: dict[str, tuple[str, str]] = {
    "english": (
        "a an the and or but if then else so than that this these those there here is are was"
        " were be been being am do does did doing have has had having i me my mine myself we us"
        " our ours ourselves you your yours yourself yourselves he him his himself she her hers"
        " herself it its itself they them their theirs themselves what which who whom whose"
        " when where why how all any both each few more most other some such own same too very"
        " s t d ll m re ve can will just also of at by for with about into through during to"
        " from up down in out on off over under again further once as while would could shall"
        " may might should etc eg ie aka vs via please recently lately",
        "not no nor never without always must only cannot except dont doesnt didnt isnt"
        " cant wont",
    ),
    "russian": (
        "и в во что он на я с со как а то все всё она так его но да ты к у же вы за бы по ее"
        " её мне было вот от меня еще ещё о из ему теперь когда даже ну вдруг ли если уже или"
        " быть был него вас нибудь опять уж вам ведь там потом себя ей они тут где есть ней"
        " для мы тебя их чем была сам чтоб будто чего раз тоже себе под будет ж тогда кто этот"
        " того потому этого какой совсем ним здесь этом почти мой тем чтобы нее неё сейчас были"
        " куда зачем всех при наконец об другой хоть над больше тот через эти нас про всего них"
        " какая много разве эту моя впрочем свою этой иногда чуть том такой им более всю это"
        " эта также недавно",
        "не нет ни никогда без всегда нельзя надо нужно должен должны только кроме можно",
    ),
    "german": (
        "der die das den dem des ein eine einer eines einem einen und oder aber als am an auf"
        " aus bei bin bis bist da damit dann dass daß dein deine denn dich dir du durch er es"
        " euch euer für hab habe haben hat hatte ich ihr ihm ihn im in ist ja jetzt man mein"
        " meine mich mir mit nach noch nun ob sehr sein seine sich sie sind über um uns unser"
        " von vor war waren was wenn wer wie wir wird wo zu zum zur auch diese dieser dieses"
        " seit weil schon wieder beim vom sondern unter zwischen gegen kann können wurde wurden"
        " werden",
        "nicht kein keine keinen nie niemals ohne immer muss müssen nur darf soll sollte",
    ),
    "french": (
        "le la les un une des du de d l et ou mais donc car que qui quoi dont où à au aux ce ces"
        " cet cette c il ils elle elles on nous vous je j me m te t se s lui leur leurs mon ma"
        " mes ton ta tes son sa ses notre nos votre vos en y dans par pour sur avec est sont été"
        " être avoir ai as avons avez ont était qu comme aussi très tout tous toute toutes même"
        " depuis après avant quand chez ainsi alors encore déjà cela ceci ça fait peut peuvent"
        " entre sous vers selon",
        "ne pas non jamais sans toujours doit doivent faut seulement aucun aucune rien",
    ),
    "spanish": (
        "el la los las un una unos unas de del al a y e o u pero que quien quienes cual como en"
        " con por para es son fue era está están estar ser soy eres somos lo le les se me te nos"
        " os mi mis tu tus su sus este esta estos estas ese esa esos esas muy más ya también hay"
        " desde hasta cuando donde sobre entre porque cómo qué nuestro nuestra usted ustedes ellos"
        " ellas eso algo todo todos cada otro otra tiene tienen puede pueden",
        "no nunca sin siempre debe deben solo sólo ni jamás",
    ),
    "italian": (
        "il lo la i gli le un uno una di del della dei delle degli da dal dalla in nel nella con"
        " su sul per tra fra e ed o ma che chi cui come è sono era erano essere ho ha hanno"
        " questo questa questi queste quello quella anche molto più si ci vi mi ti suo sua loro"
        " mio mia"
        " l dell nell all sull alla sulla dopo prima quando dove perché ancora già nostro nostra"
        " ogni altro tutto tutti può possono stato",
        "non mai senza sempre deve devono solo",
    ),
    "portuguese": (
        "o a os as um uma uns umas de do da dos das em no na nos nas por para com e ou mas que"
        " quem qual como é são foi era está estão ser ter tem há se me te lhe lhes seu sua seus"
        " suas meu minha este esta estes estas esse essa isso isto muito mais também já ao aos"
        " à às"
        " desde depois antes quando onde porque ainda nosso nossa pelo pela pelos pelas num numa"
        " aquilo você vocês eles elas pode podem tudo todos",
        "não nunca sem sempre deve devem só apenas nem",
    ),
    "dutch": (
        "de het een en of maar dat die dit deze van in op te met voor aan bij uit als is zijn"
        " was waren wordt worden ik je jij hij zij wij we ze u hem haar ons hun mijn er ook om"
        " naar dan tot wat wie waar hoe door over heb heeft hebben"
        " sinds na wanneer omdat nog al weer onder tussen tegen kan kunnen werd werden zal zullen",
        "niet geen nooit zonder altijd moet moeten alleen",
    ),
    "swedish": (
        "och i att det som en ett på är av för med till den de om var jag hon han vi ni så men"
        " har hade från vid kan sig min mitt sin ut eller då när där här detta dessa"
        " efter också hur vad sedan",
        "inte aldrig utan alltid måste bara ingen",
    ),
    "norwegian": (
        "og i det som en et på er av for med til den de om var jeg hun han vi dere så men har"
        " hadde fra ved kan seg min mitt sin ut eller da når der her dette disse å"
        " etter også hvordan hva siden",
        "ikke aldri uten alltid må bare ingen",
    ),
    "danish": (
        "og i at det som en et på er af for med til den de om var jeg hun han vi så men har"
        " havde fra ved kan sig min mit sin ud eller da når der her dette disse"
        " efter også hvordan hvad siden",
        "ikke aldrig uden altid skal kun ingen",
    ),
    "finnish": (
        "ja on se että oli ovat olla kun mutta tai jos niin kuin myös joka jotka tämä nämä ne"
        " hän he me te minä sinä sen sitä siitä mitä mikä kanssa jo nyt"
        " jälkeen kautta vielä",
        "ei eikä koskaan ilman aina pitää täytyy vain",
    ),
    "hungarian": (
        "a az egy és vagy de hogy is van volt lesz meg már ez azt ezt mint mert ha el fel le ki"
        " be itt ott ahol amely amit aki ami"
        " után miatt pedig",
        "nem soha nélkül mindig kell csak sem",
    ),
    "romanian": (
        "și sau dar că de la în pe cu din pentru este sunt a fost fi un o unei unui al ale lui"
        " ei el ea noi voi ce care cum mai se să",
        "nu niciodată fără mereu trebuie doar",
    ),
    "turkish": (
        "ve veya ama bir bu şu o da de ile için gibi çok daha ne ki mi mı mu mü olarak olan ben"
        " sen biz siz onlar en her",
        "değil hiç asla olmadan yok sadece mutlaka",
    ),
    "indonesian": (
        "yang dan di ke dari ini itu dengan untuk pada adalah dalam akan juga atau ada oleh saya"
        " kami kita mereka dia ia sudah telah",
        "tidak bukan jangan tanpa selalu harus hanya belum",
    ),
    "polish": (
        "i w z na do że się to jest jak o co ale a od po dla tak czy przez jego jej ich ten ta"
        " te być był była było są by lub oraz także już który która które",
        "nie nigdy bez zawsze musi trzeba tylko ani",
    ),
    "czech": (
        "a v na se je že s z do to o k i jak by jsem jsou byl být ale nebo pro za od po jeho"
        " její jejich ten ta tak také už který která které",
        "ne nikdy bez vždy musí jen nesmí",
    ),
    "catalan": (
        "el la els les un una de del dels a al i o però que qui com en amb per és són va ser"
        " està aquest aquesta això molt més també ja"
        " des quan perquè encara seu seva nostre",
        "no mai sense sempre cal només",
    ),
    "serbian": (
        "i u je na da se za od su to sa kao ali ili koji koja koje biti bio bila što",
        "ne nikad bez uvek mora samo",
    ),
}

#: Stop words per PyStemmer language (only languages with an embedded list).
STOP_WORDS: dict[str, frozenset[str]] = {
    lang: frozenset(stop.split()) for lang, (stop, _keep) in _LANG_WORDS.items()
}
