# ruff: noqa: E501  (verbatim command output and file contents)
"""Blazor Server list page: Virtualize abandoned for QuickGrid paging; DbContext concurrency; a rejected edit (French)."""

from make_sessions import Session

PAGE = '''@page "/interventions"
@inject AppDbContext Db
@inject IStringLocalizer<Interventions> L

<h1>@L["Titre"]</h1>

<InputText @bind-Value="filtre" @bind-Value:after="Recharger" placeholder="@L["Filtrer"]" />

<table class="table">
    <thead><tr><th>@L["Date"]</th><th>@L["Client"]</th><th>@L["Technicien"]</th><th>@L["Commentaire"]</th></tr></thead>
    <tbody>
    @foreach (var i in interventions)
    {
        <tr><td>@i.Date.ToShortDateString()</td><td>@i.Client</td><td>@i.Technicien</td><td>@i.Commentaire</td></tr>
    }
    </tbody>
</table>

@code {
    private string filtre = "";
    private List<Intervention> interventions = new();

    protected override async Task OnInitializedAsync() => await Recharger();

    private async Task Recharger() =>
        interventions = await Db.Interventions
            .Where(i => i.Client.Contains(filtre))
            .OrderByDescending(i => i.Date)
            .ToListAsync();
}
'''

PROGRAM_GREP = '''src/Interventions.Web/Program.cs:14:builder.Services.AddDbContext<AppDbContext>(o => o.UseNpgsql(builder.Configuration.GetConnectionString("Main")));
src/Facturation.Web/Program.cs:19:builder.Services.AddDbContextFactory<FacturationDbContext>(o => o.UseNpgsql(builder.Configuration.GetConnectionString("Main")));'''

ERROR_LOG = '''fail: Microsoft.AspNetCore.Components.Server.Circuits.CircuitHost[111]
      Unhandled exception in circuit 'r8Q2mXr1kT0vZp4bL6yN9cW3eH5uJ7aD0fG2iK4oS6'.
      System.InvalidOperationException: A second operation was started on this context instance before a previous operation completed. This is usually caused by different threads concurrently using the same instance of DbContext.
         at Microsoft.EntityFrameworkCore.Infrastructure.Internal.ConcurrencyDetector.EnterCriticalSection()
         at Microsoft.EntityFrameworkCore.Query.Internal.SingleQueryingEnumerable`1.AsyncEnumerator.MoveNextAsync()
         at Interventions.Web.Pages.Interventions.<>c__DisplayClass0_0.<<BuildRenderTree>b__1>d.MoveNext() in /home/claire/src/sav-terrain/src/Interventions.Web/Pages/Interventions.razor:line 41'''


def build() -> Session:
    s = Session("blazor-interventions-fr", cwd="/home/claire/src/sav-terrain", branch="perf/liste-interventions",
                start="2026-03-18T13:31:50.022Z", version="2.1.57", slug="paged-grid-puffin")
    s.user(
        "Salut ! La page /interventions met 8 secondes à s'afficher chez les gros clients (12 000 "
        "lignes) et le navigateur rame ensuite. Tu peux regarder ?\n\nPour info on reste en "
        "Blazor Server, pas de WebAssembly : les techniciens ont des tablettes Android 8 dans les "
        "camions, elles ne tiennent pas un bundle WASM.",
        wait=5,
    )
    s.call(s.read_call("src/Interventions.Web/Pages/Interventions.razor", PAGE))
    s.grep("AddDbContext", content=PROGRAM_GREP, glob="Program.cs")
    s.say(
        "La page charge les 12 000 interventions d'un coup (`ToListAsync`) puis rend 12 000 `<tr>` "
        "dans le circuit. Le plus simple : `<Virtualize>`, qui ne rend que les lignes visibles et "
        "demande les données par tranche via un `ItemsProvider`."
    )
    s.edit("src/Interventions.Web/Pages/Interventions.razor", '''    @foreach (var i in interventions)
    {
        <tr><td>@i.Date.ToShortDateString()</td><td>@i.Client</td><td>@i.Technicien</td><td>@i.Commentaire</td></tr>
    }''', '''    <Virtualize ItemsProvider="ChargerTranche" ItemSize="48" Context="i">
        <tr><td>@i.Date.ToShortDateString()</td><td>@i.Client</td><td>@i.Technicien</td><td>@i.Commentaire</td></tr>
    </Virtualize>''')
    s.edit("src/Interventions.Web/Pages/Interventions.razor", '''    private async Task Recharger() =>''', '''    private async ValueTask<ItemsProviderResult<Intervention>> ChargerTranche(ItemsProviderRequest r)
    {
        var requete = Db.Interventions.Where(i => i.Client.Contains(filtre));
        var total = await requete.CountAsync(r.CancellationToken);
        var items = await requete.OrderByDescending(i => i.Date).Skip(r.StartIndex).Take(r.Count).ToListAsync(r.CancellationToken);
        return new ItemsProviderResult<Intervention>(items, total);
    }

    private async Task Recharger() =>''')
    s.bash("dotnet build src/Interventions.Web -warnaserror 2>&1 | tail -3", '''  Interventions.Web -> /home/claire/src/sav-terrain/src/Interventions.Web/bin/Debug/net8.0/Interventions.Web.dll

Build succeeded.''', desc="Build", secs=25)
    s.say("Compile. Tu peux essayer avec un gros client (`dotnet watch` tourne chez toi ?) — le premier affichage devrait être immédiat.")
    s.turn_end()
    s.user(
        "Affichage rapide oui, mais quand je scrolle ça saute dans tous les sens, la barre de "
        "défilement fait des bonds. Et en tapant vite dans le filtre j'ai eu une page d'erreur, "
        "je te colle le log :\n\n" + ERROR_LOG,
        wait=240,
    )
    s.say(
        "Deux problèmes distincts.\n\n"
        "**Le scroll qui saute** : `Virtualize` suppose une hauteur fixe (`ItemSize=\"48\"`), or "
        "les lignes avec un long commentaire font deux ou trois lignes. La hauteur calculée ne "
        "correspond jamais, d'où les bonds. Avec une hauteur variable, `Virtualize` n'est pas le "
        "bon outil ; je passe à `QuickGrid` avec un `Paginator` de 25 lignes : la base ne renvoie "
        "qu'une page, et la hauteur des lignes n'a plus d'importance.\n\n"
        "**L'exception** : `A second operation was started on this context instance`. En Blazor "
        "Server, un `DbContext` injecté en Scoped vit aussi longtemps que le circuit, donc toute "
        "la session de l'utilisateur. Quand une frappe dans le filtre relance une requête pendant "
        "que la précédente tourne encore, deux requêtes utilisent le même contexte. Je rends la "
        "durée de vie du contexte plus courte."
    )
    s.call(s.read_call("src/Interventions.Web/Program.cs", '''var builder = WebApplication.CreateBuilder(args);

builder.Services.AddRazorComponents().AddInteractiveServerComponents();
builder.Services.AddLocalization();
builder.Services.AddDbContext<AppDbContext>(o => o.UseNpgsql(builder.Configuration.GetConnectionString("Main")));
'''))
    s.edit_rejected("src/Interventions.Web/Program.cs",
                    '''builder.Services.AddDbContext<AppDbContext>(o => o.UseNpgsql(builder.Configuration.GetConnectionString("Main")));''',
                    '''builder.Services.AddDbContext<AppDbContext>(o => o.UseNpgsql(builder.Configuration.GetConnectionString("Main")), ServiceLifetime.Transient);''',
                    reason="non, pas de Transient, ça masque le problème et les composants enfants récupèrent quand même des contextes partagés. fais comme dans Facturation : IDbContextFactory et un contexte par opération")
    s.say("D'accord, `IDbContextFactory` comme dans `Facturation.Web` : un contexte créé et libéré pour chaque requête.")
    s.edit("src/Interventions.Web/Program.cs",
           '''builder.Services.AddDbContext<AppDbContext>(o => o.UseNpgsql(builder.Configuration.GetConnectionString("Main")));''',
           '''// Blazor Server : un DbContext Scoped vivrait tout le circuit ; un contexte par opération.
builder.Services.AddDbContextFactory<AppDbContext>(o => o.UseNpgsql(builder.Configuration.GetConnectionString("Main")));''')
    s.write("src/Interventions.Web/Pages/Interventions.razor", '''@page "/interventions"
@implements IAsyncDisposable
@inject IDbContextFactory<AppDbContext> Fabrique
@inject IStringLocalizer<Interventions> L

<h1>@L["Titre"]</h1>

<InputText @bind-Value="filtre" @bind-Value:after="Filtrer" placeholder="@L["Filtrer"]" />

<QuickGrid ItemsProvider="ChargerPage" Pagination="pagination" Class="table">
    <PropertyColumn Property="i => i.Date" Format="d" Title="@L["Date"]" />
    <PropertyColumn Property="i => i.Client" Title="@L["Client"]" />
    <PropertyColumn Property="i => i.Technicien" Title="@L["Technicien"]" />
    <PropertyColumn Property="i => i.Commentaire" Title="@L["Commentaire"]" />
</QuickGrid>
<Paginator State="pagination" />

@code {
    // Pagination plutôt que Virtualize : les lignes ont une hauteur variable (commentaires longs).
    private readonly PaginationState pagination = new() { ItemsPerPage = 25 };
    private string filtre = "";

    private async ValueTask<GridItemsProviderResult<Intervention>> ChargerPage(GridItemsProviderRequest<Intervention> r)
    {
        await using var db = await Fabrique.CreateDbContextAsync(r.CancellationToken);
        var requete = db.Interventions.Where(i => i.Client.Contains(filtre));
        var total = await requete.CountAsync(r.CancellationToken);
        var page = await r.ApplySorting(requete.OrderByDescending(i => i.Date))
            .Skip(r.StartIndex).Take(r.Count ?? 25).ToListAsync(r.CancellationToken);
        return GridItemsProviderResult.From(page, total);
    }

    private Task Filtrer() => pagination.SetCurrentPageIndexAsync(0);

    public ValueTask DisposeAsync() => ValueTask.CompletedTask;
}
''')
    s.bash("dotnet add src/Interventions.Web package Microsoft.AspNetCore.Components.QuickGrid --version 8.0.11 2>&1 | tail -2", '''info : PackageReference for package 'Microsoft.AspNetCore.Components.QuickGrid' version '8.0.11' added to file '/home/claire/src/sav-terrain/src/Interventions.Web/Interventions.Web.csproj'.
info : Writing assets file to disk. Path: /home/claire/src/sav-terrain/src/Interventions.Web/obj/project.assets.json''', desc="Ajouter QuickGrid", secs=9)
    s.write("tests/Interventions.Tests/InterventionsPageTests.cs", '''using Bunit;
using Microsoft.EntityFrameworkCore;
using Microsoft.Extensions.DependencyInjection;
using Xunit;

public class InterventionsPageTests : TestContext
{
    [Fact]
    public void Affiche_une_page_de_25_lignes()
    {
        Services.AddDbContextFactory<AppDbContext>(o => o.UseInMemoryDatabase("interventions"));
        Services.AddLocalization();
        Seed(Services, 120);
        var page = RenderComponent<Interventions.Web.Pages.Interventions>();
        page.WaitForAssertion(() => Assert.Equal(25, page.FindAll("tbody tr").Count));
    }
}
''')
    s.bash("dotnet test tests/Interventions.Tests 2>&1 | tail -3", '''error CS0103: The name 'Seed' does not exist in the current context [/home/claire/src/sav-terrain/tests/Interventions.Tests/Interventions.Tests.csproj]
    0 Warning(s)
    1 Error(s)''', desc="Tests", secs=30)
    s.grep("static void Seed", content="tests/Interventions.Tests/TestData.cs:9:    public static void Seed(IServiceProvider services, int count)")
    s.edit("tests/Interventions.Tests/InterventionsPageTests.cs", "        Seed(Services, 120);", "        TestData.Seed(Services, 120);")
    s.bash("dotnet test tests/Interventions.Tests 2>&1 | tail -3", '''
Passed!  - Failed:     0, Passed:    18, Skipped:     0, Total:    18, Duration: 2 s - Interventions.Tests.dll (net8.0)''', desc="Tests", secs=35)
    s.bash("dotnet build -warnaserror 2>&1 | tail -3", '''
Build succeeded.
    0 Warning(s)''', desc="Build complet", secs=50)
    s.say(
        "C'est en place :\n\n"
        "- `/interventions` utilise `QuickGrid` + `Paginator` (25 lignes), la base ne renvoie "
        "qu'une page ; plus de `Virtualize`, donc plus de bonds avec les commentaires longs.\n"
        "- `AppDbContext` passe par `IDbContextFactory` : un contexte par chargement de page, "
        "libéré aussitôt — la frappe rapide dans le filtre ne peut plus lancer deux requêtes sur "
        "le même contexte.\n"
        "- Test bUnit (25 lignes par page), 18 tests verts, build sans warning.\n\n"
        "Attention : `ExportCsv.razor` injecte encore `AppDbContext` directement. Avec "
        "`AddDbContextFactory` il résout toujours (la factory enregistre aussi le contexte), mais "
        "il a le même problème de concurrence ; il faudrait le migrer aussi."
    )
    s.turn_end()
    s.user("ok, l'export on le fera dans un autre ticket. merci !", wait=90)
    s.say("Avec plaisir.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Blazor Server (.NET 8, EF Core, QuickGrid, bUnit), French",
        "a rule with its reason in the first prompt (Blazor Server, no WebAssembly: Android 8 tablets)",
        "a first approach (Virtualize) that the user reports as not working (scroll jumps), replaced by QuickGrid paging",
        "an exception log pasted by the user (second operation on the DbContext)",
        "an Edit rejected with the user's reason (no Transient; IDbContextFactory as in Facturation)",
        "a compile error in a new test (exit code hidden behind `| tail`), then green",
        "a todo the user defers to another ticket (CSV export)",
    ],
    "language": "fr",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "project_fact"],
         "match": [["WebAssembly", "WASM"], ["tablettes", "Android"]],
         "note": "On reste en Blazor Server, pas de WebAssembly : les tablettes Android 8 des techniciens ne tiennent pas un bundle WASM."},
        {"id": "f1", "type": "failed_attempt",
         "match": [["Virtualize"], ["saute", "bonds", "hauteur"]],
         "note": "Virtualize avec ItemSize=48 faisait sauter le scroll : les lignes ont une hauteur variable (commentaires longs)."},
        {"id": "d1", "type": "decision",
         "match": [["QuickGrid", "Paginator"], ["hauteur", "Virtualize", "bonds"]],
         "note": "La liste utilise QuickGrid avec un Paginator de 25 lignes plutôt que Virtualize, parce que la hauteur des lignes varie."},
        {"id": "b1", "type": "bug_note",
         "match": [["second operation"], ["IDbContextFactory", "CreateDbContextAsync", "circuit"]],
         "note": "InvalidOperationException 'A second operation was started on this context instance' en tapant vite dans le filtre : DbContext Scoped partagé par le circuit ; corrigé avec IDbContextFactory."},
        {"id": "d2", "type": "decision",
         "match": [["IDbContextFactory"], ["circuit", "par opération"]],
         "note": "AppDbContext passe par IDbContextFactory (un contexte par opération), parce qu'en Blazor Server un contexte Scoped vit tout le circuit."},
        {"id": "c2", "type": "preference", "types": ["preference", "constraint"],
         "match": [["Transient"], ["IDbContextFactory", "Facturation"]],
         "note": "Pas de DbContext Transient (masque le problème) : IDbContextFactory et un contexte par opération, comme dans Facturation."},
        {"id": "t1", "type": "todo",
         "match": [["ExportCsv", "export"], ["AppDbContext", "concurrence", "ticket"]],
         "note": "ExportCsv.razor injecte encore AppDbContext directement (même problème de concurrence) : à migrer dans un autre ticket."},
        {"id": "b2", "type": "bug_note", "required": False,
         "match": [["CS0103", "Seed"], ["TestData"]],
         "note": "Le test bUnit appelait Seed au lieu de TestData.Seed (CS0103)."},
        {"id": "v1", "type": "verified_command", "command": "dotnet test tests/Interventions.Tests"},
        {"id": "v2", "type": "verified_command", "command": "dotnet build -warnaserror"},
        {"id": "v3", "type": "verified_command", "required": False, "command": "dotnet build src/Interventions.Web -warnaserror"},
    ],
    "secrets": [],
    "forbidden": [["doesn't want to proceed"]],
}
