package dev.inbox.cdi;

import jakarta.servlet.HttpConstraintElement;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletRegistration;
import jakarta.servlet.ServletSecurityElement;
import jakarta.servlet.annotation.ServletSecurity;
import java.lang.System.Logger.Level;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Maps Inbox's console ({@link ConsoleServlet}) into the web module at {@code inbox.console.path}
 * (default {@code /inbox}), open only to users in {@code inbox.console.role} (default
 * {@code inbox-admin}): the application maps that role to its administrators and configures how
 * they log in. {@code inbox.console.enabled=false} leaves it out.
 */
final class Console {
    private static final System.Logger LOG = System.getLogger(Console.class.getName());
    /** Segments of letters, digits, '_', '-' and '.', none of dots alone ({@code ..} would leave the console's path). */
    private static final Pattern PATH = Pattern.compile("(/(?!\\.+(/|$))[A-Za-z0-9_.-]+)+");
    private static final Pattern ROLE = Pattern.compile("[A-Za-z0-9_.-]{1,100}");

    private Console() {}

    static void register(ServletContext context, InboxStartup startup) {
        Config config = ConfigProvider.getConfig();
        if (!enabled(config)) {
            return;
        }
        String path = path(config.getOptionalValue(ConfigKeys.CONSOLE_PATH, String.class).orElse("/inbox"));
        String role = config.getOptionalValue(ConfigKeys.CONSOLE_ROLE, String.class).orElse("inbox-admin").trim();
        if (!ROLE.matcher(role).matches()) {
            throw new ConfigurationProblem("MicroProfile Config " + ConfigKeys.CONSOLE_ROLE + " = " + role + " is not a"
                    + " role name: letters, digits, '_', '-', '.'");
        }
        ServletRegistration.Dynamic console = context.addServlet("inbox-console",
                new ConsoleServlet(startup::broker, startup::health, startup.throughput(),
                startup.payloadLimit()));
        if (console == null) {
            LOG.log(Level.WARNING, "Inbox: the web module already has a servlet named inbox-console; the console is"
                    + " not served");
            return;
        }
        console.addMapping(path + "/*");
        context.declareRoles(role);
        console.setServletSecurity(new ServletSecurityElement(new HttpConstraintElement(
                ServletSecurity.TransportGuarantee.NONE, role)));
        LOG.log(Level.INFO, "Inbox: console at {0}{1} for role {2}", context.getContextPath(), path, role);
    }

    /** {@code inbox.console.enabled}: true where unset, refused unless true or false. */
    static boolean enabled(Config config) {
        try {
            return InboxExtension.flag(config, ConfigKeys.CONSOLE_ENABLED, true);
        } catch (dev.inbox.InboxException e) {
            throw new ConfigurationProblem(e.detail());
        }
    }

    /**
     * The console's path from {@code inbox.console.path}, trimmed.
     *
     * @throws ConfigurationProblem for one that is not a plain path of the web module
     */
    static String path(String configured) {
        String path = configured.trim();
        if (!PATH.matcher(path).matches()) {
            throw new ConfigurationProblem("MicroProfile Config " + ConfigKeys.CONSOLE_PATH + " = " + path + " is not"
                    + " a path of the web module: give one like /inbox or /admin/queues (segments of letters, digits,"
                    + " '_', '-', '.', none of them . or ..)");
        }
        return path;
    }
}
