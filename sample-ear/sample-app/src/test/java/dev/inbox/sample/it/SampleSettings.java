package dev.inbox.sample.it;

import java.util.ArrayList;
import java.util.List;

/** The system properties a test's server runs with, beside those the test sets. */
final class SampleSettings {
    /**
     * The sample's nightly report, off unless a test configures it: at 02:00 UTC it would publish a
     * report into a test that counts them.
     */
    static final String NIGHTLY_REPORT = "inbox.recurring.nightly-report.";

    private SampleSettings() {
    }

    /** {@code properties}, with the nightly report disabled where they do not configure it. */
    static List<String> with(List<String> properties) {
        List<String> all = new ArrayList<>(properties);
        if (properties.stream().noneMatch(p -> p.startsWith(NIGHTLY_REPORT))) {
            all.add(NIGHTLY_REPORT + "enabled=false");
        }
        return all;
    }
}
