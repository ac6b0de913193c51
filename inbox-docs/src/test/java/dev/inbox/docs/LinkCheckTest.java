package dev.inbox.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The site's link check finds a missing page and a missing anchor, and lets good links and other sites be. */
class LinkCheckTest {

    @Test
    void aMissingPageAndAMissingAnchorAreReportedAndNothingElse(@TempDir Path site) throws Exception {
        Files.writeString(site.resolve("index.html"), "<h2 id=\"top\">Top</h2><a href=\"concepts.html#claim-forms\">ok</a>"
                + "<a href=\"#top\">self</a><a href=\"https://example.org/x\">away</a><a href=\"gone.html\">gone</a>"
                + "<a href=\"concepts.html#nowhere\">nowhere</a><img src=\"console.png\">");
        Files.writeString(site.resolve("concepts.html"), "<h2 id=\"claim-forms\">Claim forms</h2>");
        Files.write(site.resolve("console.png"), new byte[] {1});
        assertThat(new LinkCheck(site).broken()).containsExactly("index.html: gone.html (no file gone.html)",
                "index.html: concepts.html#nowhere (no anchor #nowhere in concepts.html)");
    }
}
