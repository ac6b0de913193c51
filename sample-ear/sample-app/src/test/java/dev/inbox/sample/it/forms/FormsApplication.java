package dev.inbox.sample.it.forms;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The forms application's REST API, under {@code /forms-it/api}. */
@ApplicationPath("/api")
public class FormsApplication extends Application {
}
