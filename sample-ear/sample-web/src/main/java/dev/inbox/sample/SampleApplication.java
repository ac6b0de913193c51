package dev.inbox.sample;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The sample's REST API, under {@code /sample/api}. */
@ApplicationPath("/api")
public class SampleApplication extends Application {
}
