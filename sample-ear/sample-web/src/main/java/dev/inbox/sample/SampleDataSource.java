package dev.inbox.sample;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Produces;
import javax.sql.DataSource;

/**
 * The sample's JTA data source, for {@code @Inject DataSource}: one resource reference,
 * {@code java:comp/env/jdbc/inbox}, which each server binds its own way. Open Liberty binds an
 * unbound reference to the data source of the same JNDI name ({@code jdbc/inbox}); WildFly, whose
 * data sources live under {@code java:/}, binds it in {@code WEB-INF/jboss-web.xml}.
 */
@Dependent
public class SampleDataSource {

    @Produces
    @Resource(lookup = "java:comp/env/jdbc/inbox")
    DataSource dataSource;
}
