package dev.inbox.testing;

import java.util.Optional;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Prints each failed test with the name JUnit displays for it (the database and claim form of a
 * parameterised case), where the build's console shows only its method and index: a red run then
 * says which database failed. Registered for every test of the module (junit-platform.properties).
 */
public final class NamedFailures implements TestWatcher {

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        String test = context.getRequiredTestClass().getSimpleName() + "." + context.getRequiredTestMethod().getName();
        String message = Optional.ofNullable(cause.getMessage()).map(m -> m.strip().lines().findFirst().orElse(""))
                .orElse(cause.getClass().getName());
        System.out.println("FAILED " + test + " [" + context.getDisplayName() + "]: " + message);
    }
}
