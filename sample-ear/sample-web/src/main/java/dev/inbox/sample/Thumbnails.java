package dev.inbox.sample;

import dev.inbox.Inbound;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.SQLException;
import javax.sql.DataSource;

/** Lease form: renders a thumbnail; nothing is held while it runs. */
@ApplicationScoped
public class Thumbnails {
    @Inject
    DataSource dataSource;

    public void thumbnail(@Inbound(queue = "thumbnails", table = MakeThumbnail.class, workers = 2) Image image)
            throws SQLException {
        Rows.insertCommitted(dataSource, "INSERT INTO thumbnails_rendered (path) VALUES (?)", image.path());
    }
}
