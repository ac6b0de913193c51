package dev.inbox.sample.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Inbox's console in a real browser (headless Chromium, Debian's chromium and chromium-driver,
 * driven by Selenium) against the sample on Open Liberty and PostgreSQL (or the database
 * {@code -Dinbox.test.console.db} names): its counts match the tables, its style sheet applies
 * under its Content-Security-Policy, retrying a dead refund (once its cause is gone) gets it
 * handled, pausing the refunds queue holds a new refund back and resuming records it, and a user
 * without the admin role is refused. It leaves a screenshot of the console in target/console.png (docs/console.png is one).
 */
class ConsoleInBrowserIT {
    private static final String CHROMIUM = "/usr/bin/chromium";
    private static final String CHROMEDRIVER = "/usr/bin/chromedriver";
    /** The sample's database: PostgreSQL unless -Dinbox.test.console.db names another (sqlite, mariadb). */
    private static final String DB = System.getProperty("inbox.test.console.db", "postgres");

    private final LibertyServer server = new LibertyServer();
    private final String password = "console-" + System.nanoTime();
    private ItDatabase database;
    private WebDriver browser;
    private Path profile;

    @BeforeEach
    void startBrowser() throws Exception {
        for (String program : List.of(CHROMIUM, CHROMEDRIVER)) {
            assertThat(Path.of(program)).as(program + ": install Debian's chromium and chromium-driver (apt-get"
                    + " install chromium chromium-driver), as .ci/run does").isExecutable();
        }
        profile = Files.createTempDirectory("inbox-console-chromium");
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM).addArguments("--headless", "--no-sandbox",
                "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--window-size=1400,900", "--user-data-dir=" + profile);
        browser = new ChromeDriver(new ChromeDriverService.Builder().usingDriverExecutable(Path.of(CHROMEDRIVER)
                .toFile()).build(), options);
        browser.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(60));
    }

    @AfterEach
    void stop() throws Exception {
        if (browser != null) {
            browser.quit();
        }
        server.stop();
    }

    @Test
    void anAdministratorSeesTheQueuesRetriesADeadRefundAndPausesAQueue() throws Exception {
        database = new ItDatabase(DB, server.outputDir());
        database.drop(ItDatabase.SAMPLE_TABLES);
        server.configure(DB, List.of("sample.admin.password=" + password));
        server.start();
        SampleApi api = server.api();
        for (int order = 1; order <= 3; order++) {
            assertThat(api.post("/refunds", "{\"order\": " + order + ", \"amountCents\": 100}").statusCode())
                    .isEqualTo(202);
        }
        await(() -> database.count("refunds") == 3, "three refunds recorded");
        assertThat(api.post("/refunds", "{\"order\": 1, \"amountCents\": 100}").statusCode()).isEqualTo(202);
        await(() -> database.count("refund_dead") == 1, "the duplicate refund dead-lettered");

        browser.get(url("admin", ""));
        WebElement refunds = row("refunds");
        assertThat(cell(refunds, "ready")).isEqualTo(String.valueOf(database.count("refund_jobs")));
        assertThat(cell(refunds, "dead")).isEqualTo("1");
        assertThat(cell(refunds, "in-work")).isEqualTo("0");
        assertThat(cell(refunds, "state")).isEqualTo("running");
        assertThat(cell(row("receipts"), "dead")).isEqualTo("0");
        assertThat(browser.findElement(By.id("queues")).getCssValue("border-collapse"))
                .as("the page's style sheet applies under its Content-Security-Policy").isEqualTo("collapse");
        assertThat(refunds.findElement(By.cssSelector("svg.sparkline title")).getAttribute("textContent"))
                .isEqualTo("4 deliveries in the last hour");
        Path shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath();
        Files.copy(shot, Path.of("target", "console.png"), StandardCopyOption.REPLACE_EXISTING);

        // The dead refund's page: its cause removed (the refund's record), Retry records it again.
        refunds.findElement(By.linkText("refunds")).click();
        WebElement dead = browser.findElement(By.cssSelector("#dead-letters tbody tr"));
        assertThat(dead.getText()).contains("\"order\":1", "not recorded");
        database.execute("DELETE FROM refunds WHERE order_id = 1");
        dead.findElement(By.xpath(".//button[text()='Retry']")).click();
        await(() -> {
            try {
                return browser.findElement(By.id("no-dead-letters")).getText().equals("None.");
            } catch (WebDriverException e) {
                return false; // the page after the retry is still loading
            }
        }, "the queue's page after the retry showing no dead letters");
        await(() -> database.count("refunds WHERE order_id = 1") == 1, "the retried refund recorded");

        // Paused, a new refund waits; resumed, it is recorded.
        browser.get(url("admin", ""));
        row("refunds").findElement(By.xpath(".//button[text()='Pause']")).click();
        awaitCell("refunds", "state", "paused");
        assertThat(api.post("/refunds", "{\"order\": 4, \"amountCents\": 100}").statusCode()).isEqualTo(202);
        Thread.sleep(3_000); // three poll intervals
        assertThat(database.count("refunds WHERE order_id = 4")).as("refund 4 waits while paused").isZero();
        browser.navigate().refresh();
        awaitCell("refunds", "ready", "1");
        row("refunds").findElement(By.xpath(".//button[text()='Resume']")).click();
        awaitCell("refunds", "state", "running");
        await(() -> database.count("refunds WHERE order_id = 4") == 1, "refund 4 recorded once resumed");
        browser.navigate().refresh();
        awaitCell("refunds", "ready", "0");

        // A user the registry knows, without the console's role, is refused (the admin's sign-on
        // cookie goes first: the server would take it over the viewer's credentials).
        browser.manage().deleteAllCookies();
        browser.get(url("viewer", ""));
        assertThat(browser.getPageSource()).contains("403");
        assertThat(browser.findElements(By.id("queues"))).isEmpty();
    }

    private String url(String user, String path) {
        return "http://" + user + ":" + password + "@127.0.0.1:9080/sample/inbox/" + path;
    }

    private WebElement row(String queue) {
        return browser.findElement(By.cssSelector("#queues tr[data-queue='" + queue + "']"));
    }

    private static String cell(WebElement row, String field) {
        return row.findElement(By.cssSelector("td[data-field='" + field + "']")).getText().trim();
    }

    /** Waits until the page (loading after a click or a refresh) shows {@code expected} in a queue's cell. */
    private void awaitCell(String queue, String field, String expected) throws InterruptedException {
        await(() -> {
            try {
                return cell(row(queue), field).equals(expected);
            } catch (WebDriverException e) {
                return false; // the page is still loading
            }
        }, queue + " " + field + " " + expected + " on the page");
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        ItDatabase.await(condition, Duration.ofSeconds(60), what);
    }
}
