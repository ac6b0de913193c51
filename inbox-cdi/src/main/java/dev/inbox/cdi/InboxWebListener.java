package dev.inbox.cdi;

import jakarta.inject.Inject;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import jakarta.servlet.annotation.WebListener;
import javax.naming.NamingException;

/**
 * Starts and stops Inbox with the web module that holds {@code inbox-cdi}. While the module's
 * context initialises, the thread carries the module's context on every server ({@code java:comp},
 * its class loader, CDI), so the context captured for the adapter's threads is the module's: the
 * handlers' look-ups and lazily injected resources resolve there. WildFly fires CDI's
 * {@code @Initialized(ApplicationScoped.class)} on a deployment thread without the module's
 * {@code java:comp}, so Inbox does not start there. A failed start fails the module's deployment.
 */
@WebListener
public class InboxWebListener implements ServletContextListener {

    @Inject
    InboxStartup startup;

    @Override
    public void contextInitialized(ServletContextEvent event) {
        try {
            startup.start();
            Console.register(event.getServletContext(), startup);
        } catch (NamingException e) {
            throw new ConfigurationProblem("Inbox cannot start: the server's " + e.getMessage() + " is missing");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConfigurationProblem("Inbox's start was interrupted");
        }
    }

    @Override
    public void contextDestroyed(ServletContextEvent event) {
        startup.stop();
    }
}
