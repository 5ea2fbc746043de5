# ruff: noqa: E501  (verbatim command output and file contents)
"""ASP.NET Core inventory API: concurrency conflicts surface as 500s (English)."""

from make_sessions import Session

ENDPOINT = '''using Inventory.Api.Data;
using Microsoft.EntityFrameworkCore;

namespace Inventory.Api.Endpoints;

public static class AdjustmentEndpoints
{
    public static void MapAdjustments(this IEndpointRouteBuilder app)
    {
        app.MapPost("/items/{id:guid}/adjustments", async (Guid id, AdjustmentRequest req, InventoryDb db) =>
        {
            var item = await db.Items.FirstOrDefaultAsync(i => i.Id == id);
            if (item is null)
            {
                return Results.Problem(statusCode: 404, title: "Item not found");
            }

            db.Entry(item).Property(i => i.Version).OriginalValue = req.ExpectedVersion;
            item.OnHand += req.Delta;
            db.Adjustments.Add(new Adjustment(item.Id, req.Delta, req.Reason));
            await db.SaveChangesAsync();

            return Results.Ok(new AdjustmentResponse(item.Id, item.OnHand, item.Version));
        });
    }
}

public record AdjustmentRequest(int Delta, string Reason, byte[] ExpectedVersion);
public record AdjustmentResponse(Guid Id, int OnHand, byte[] Version);
'''

TESTS = '''using System.Net;
using System.Net.Http.Json;
using FluentAssertions;
using Inventory.Api.Endpoints;
using Xunit;

namespace Inventory.Api.Tests;

public class AdjustmentTests(ApiFactory factory) : IClassFixture<ApiFactory>
{
    [Fact]
    public async Task Adjusts_stock()
    {
        var client = factory.CreateClient();
        var item = await factory.SeedItem(onHand: 10);

        var resp = await client.PostAsJsonAsync($"/items/{item.Id}/adjustments",
            new AdjustmentRequest(-3, "damaged", item.Version));

        resp.StatusCode.Should().Be(HttpStatusCode.OK);
        (await resp.Content.ReadFromJsonAsync<AdjustmentResponse>())!.OnHand.Should().Be(7);
    }
}
'''


def build() -> Session:
    s = Session("dotnet-concurrency-en", cwd="/home/ayo/src/inventory", branch="fix/adjustment-409",
                start="2026-03-16T15:44:10.208Z", version="2.1.50", slug="silent-counting-ibis")
    s.user(
        "when two people adjust the same item at once the second one gets a 500. sentry shows "
        "DbUpdateConcurrencyException from AdjustmentEndpoints. should be a proper conflict. "
        "reminder: every error response from this API is ProblemDetails, the mobile app parses "
        "them. and no AutoMapper, we ripped it out last year — map by hand",
        wait=4,
    )
    s.call(s.read_call("src/Inventory.Api/Endpoints/AdjustmentEndpoints.cs", ENDPOINT),
           s.read_call("tests/Inventory.Api.Tests/AdjustmentTests.cs", TESTS))
    s.say(
        "The endpoint already does optimistic concurrency: it sets the `Version` rowversion's "
        "original value to what the client saw, so EF adds `WHERE Version = @expected` and "
        "throws `DbUpdateConcurrencyException` when someone else got there first. Nothing "
        "catches it, hence the 500.\n\n"
        "The answer should be a 409, not a server-side retry. An adjustment is a delta the user "
        "typed while looking at a specific stock level; quietly re-applying \"−3\" to a number "
        "that has changed underneath them can double-count (both people correcting the same "
        "miscount). So the API returns a 409 ProblemDetails carrying the current stock and "
        "version, and the client decides whether to re-apply.\n\nTest first:"
    )
    s.edit("tests/Inventory.Api.Tests/AdjustmentTests.cs", '''        (await resp.Content.ReadFromJsonAsync<AdjustmentResponse>())!.OnHand.Should().Be(7);
    }
}''', '''        (await resp.Content.ReadFromJsonAsync<AdjustmentResponse>())!.OnHand.Should().Be(7);
    }

    [Fact]
    public async Task Stale_version_is_a_409_problem_with_the_current_state()
    {
        var client = factory.CreateClient();
        var item = await factory.SeedItem(onHand: 10);
        await client.PostAsJsonAsync($"/items/{item.Id}/adjustments", new AdjustmentRequest(-1, "sold", item.Version));

        var resp = await client.PostAsJsonAsync($"/items/{item.Id}/adjustments",
            new AdjustmentRequest(-3, "damaged", item.Version));

        resp.StatusCode.Should().Be(HttpStatusCode.Conflict);
        resp.Content.Headers.ContentType!.MediaType.Should().Be("application/problem+json");
        var problem = await resp.Content.ReadFromJsonAsync<ConflictProblem>();
        problem!.CurrentOnHand.Should().Be(9);
    }
}''')
    s.bash("ASPNETCORE_ENVIRONMENT=Testing dotnet test tests/Inventory.Api.Tests --filter \"FullyQualifiedName~AdjustmentTests\"", """\
  Determining projects to restore...
  All projects are up-to-date for restore.
/home/ayo/src/inventory/tests/Inventory.Api.Tests/AdjustmentTests.cs(35,59): error CS0246: The type or namespace name 'ConflictProblem' could not be found (are you missing a using directive or an assembly reference?) [/home/ayo/src/inventory/tests/Inventory.Api.Tests/Inventory.Api.Tests.csproj]

Build FAILED.""", code=1, desc="Run adjustment tests", secs=14.0)
    s.say("Expected — the test references the response shape that doesn't exist yet. Adding the "
          "catch and a `ConflictProblem` model, mapped by hand from the entity:")
    s.edit("src/Inventory.Api/Endpoints/AdjustmentEndpoints.cs", '''            db.Adjustments.Add(new Adjustment(item.Id, req.Delta, req.Reason));
            await db.SaveChangesAsync();
''', '''            db.Adjustments.Add(new Adjustment(item.Id, req.Delta, req.Reason));
            try
            {
                await db.SaveChangesAsync();
            }
            catch (DbUpdateConcurrencyException ex)
            {
                var current = await ex.Entries.Single().GetDatabaseValuesAsync();
                var onHand = current.GetValue<int>(nameof(Item.OnHand));
                var version = current.GetValue<byte[]>(nameof(Item.Version));
                return Results.Problem(
                    statusCode: StatusCodes.Status409Conflict,
                    title: "Item was changed by someone else",
                    detail: "Re-read the item and re-apply the adjustment if it still makes sense.",
                    extensions: new Dictionary<string, object?>
                    {
                        ["currentOnHand"] = onHand,
                        ["currentVersion"] = Convert.ToBase64String(version),
                    });
            }
''')
    s.edit("src/Inventory.Api/Endpoints/AdjustmentEndpoints.cs", '''public record AdjustmentResponse(Guid Id, int OnHand, byte[] Version);''',
           '''public record AdjustmentResponse(Guid Id, int OnHand, byte[] Version);
public record ConflictProblem(string Title, int Status, int CurrentOnHand, string CurrentVersion);''')
    s.bash("ASPNETCORE_ENVIRONMENT=Testing dotnet test tests/Inventory.Api.Tests --filter \"FullyQualifiedName~AdjustmentTests\" 2>&1 | tail -15", """\
/home/ayo/src/inventory/src/Inventory.Api/Endpoints/AdjustmentEndpoints.cs(31,31): error CS8602: Dereference of a possibly null reference. [/home/ayo/src/inventory/src/Inventory.Api/Inventory.Api.csproj]

Build FAILED.

/home/ayo/src/inventory/src/Inventory.Api/Endpoints/AdjustmentEndpoints.cs(31,31): error CS8602: Dereference of a possibly null reference. [/home/ayo/src/inventory/src/Inventory.Api/Inventory.Api.csproj]
    0 Warning(s)
    1 Error(s)""", desc="Run adjustment tests", secs=12.0)
    s.say(
        "`GetDatabaseValuesAsync()` returns null when the row was *deleted* meanwhile — and with "
        "`TreatWarningsAsErrors` the nullable warning fails the build. That case is real (an "
        "item archived while someone adjusts it), and it isn't a conflict: it's a 404, same as "
        "the check at the top."
    )
    s.edit("src/Inventory.Api/Endpoints/AdjustmentEndpoints.cs", '''                var current = await ex.Entries.Single().GetDatabaseValuesAsync();
                var onHand''', '''                var current = await ex.Entries.Single().GetDatabaseValuesAsync();
                if (current is null)
                {
                    return Results.Problem(statusCode: 404, title: "Item not found");
                }
                var onHand''')
    s.bash("ASPNETCORE_ENVIRONMENT=Testing dotnet test tests/Inventory.Api.Tests --filter \"FullyQualifiedName~AdjustmentTests\" 2>&1 | tail -15", """\
  Inventory.Api -> /home/ayo/src/inventory/src/Inventory.Api/bin/Debug/net9.0/Inventory.Api.dll
  Inventory.Api.Tests -> /home/ayo/src/inventory/tests/Inventory.Api.Tests/bin/Debug/net9.0/Inventory.Api.Tests.dll
Test run for /home/ayo/src/inventory/tests/Inventory.Api.Tests/bin/Debug/net9.0/Inventory.Api.Tests.dll (.NETCoreApp,Version=v9.0)
VSTest version 17.12.0 (x64)

Starting test execution, please wait...
A total of 1 test files matched the specified pattern.

Passed!  - Failed:     0, Passed:     2, Skipped:     0, Total:     2, Duration: 1 s - Inventory.Api.Tests.dll (net9.0)""",
           desc="Run adjustment tests", secs=16.0)
    s.bash("dotnet format --verify-no-changes && ASPNETCORE_ENVIRONMENT=Testing dotnet test 2>&1 | grep -E '^(Passed|Failed)!'", """\
Passed!  - Failed:     0, Passed:    64, Skipped:     0, Total:    64, Duration: 6 s - Inventory.Api.Tests.dll (net9.0)
Passed!  - Failed:     0, Passed:    31, Skipped:     0, Total:    31, Duration: 2 s - Inventory.Domain.Tests.dll (net9.0)""",
           desc="Formatting, then the whole solution", secs=40.0)
    s.say(
        "Fixed:\n\n"
        "- `AdjustmentEndpoints.cs`: a stale `ExpectedVersion` now gets **409** "
        "`application/problem+json` with `currentOnHand` and `currentVersion` (base64) as "
        "extensions; an item deleted meanwhile gets the same 404 ProblemDetails as before. No "
        "server-side retry — the client re-applies deliberately.\n"
        "- The mapping from the entity's database values is written by hand.\n"
        "- New test for the stale version; all 95 tests pass, `dotnet format` has nothing to change.\n\n"
        "Not covered here: the web and mobile clients don't handle a 409 yet. Until they do, "
        "users will see their generic error toast instead of \"someone else changed this item\" "
        "— worth a ticket for both apps."
    )
    s.turn_end()
    s.local_command("cost", "Total cost:            $0.84\nTotal duration (API):  2m 11s\n"
                    "Total duration (wall): 9m 47s", wait=30)
    return s


GOLD = {
    "covers": [
        "rules in the first prompt (ProblemDetails, no AutoMapper)",
        "decision with its why (409 instead of a server-side retry)",
        "build error (exit 1), then CS8602 behind `| tail`, then pass",
        "env prefix (ASPNETCORE_ENVIRONMENT)",
        "/cost local command after the wrap-up",
        "todo",
    ],
    "language": "en",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["ProblemDetails"], ["mobile", "every error"]],
         "note": "Every error response from the inventory API is ProblemDetails; the mobile app parses them."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["AutoMapper"], ["by hand", "ripped"]],
         "note": "No AutoMapper (removed last year); map by hand."},
        {"id": "d1", "type": "decision",
         "match": [["409"], ["retry", "re-apply"], ["double-count", "delta"]],
         "note": "A stale ExpectedVersion gets a 409 ProblemDetails with the current stock instead "
                 "of a server-side retry, because re-applying a typed delta to a changed level "
                 "can double-count."},
        {"id": "b1", "type": "bug_note",
         "match": [["DbUpdateConcurrencyException"], ["500", "409"]],
         "note": "Concurrent adjustments threw an uncaught DbUpdateConcurrencyException (500); it "
                 "is now caught and mapped to 409."},
        {"id": "b2", "type": "bug_note", "required": False,
         "match": [["GetDatabaseValuesAsync", "CS8602"], ["404", "deleted"]],
         "note": "GetDatabaseValuesAsync returns null when the item was deleted meanwhile; that is "
                 "a 404 (CS8602 under TreatWarningsAsErrors)."},
        {"id": "t1", "type": "todo",
         "match": [["409"], ["client", "mobile", "web"], ["ticket", "handle"]],
         "note": "Web and mobile clients don't handle the 409 yet; ticket for both apps."},
        {"id": "v1", "type": "verified_command",
         "command": "ASPNETCORE_ENVIRONMENT=Testing dotnet test tests/Inventory.Api.Tests --filter \"FullyQualifiedName~AdjustmentTests\""},
        {"id": "v2", "type": "verified_command",
         "command": "dotnet format --verify-no-changes && ASPNETCORE_ENVIRONMENT=Testing dotnet test"},
    ],
    "secrets": [],
    "forbidden": [],
}
