package dev.inbox.cdi;

import jakarta.enterprise.inject.spi.DeploymentException;

/**
 * A deployment problem whose message says all there is to say (a configured value Inbox cannot
 * use, and what to write instead): it carries no stack trace, so the server's log shows the one
 * line.
 */
final class ConfigurationProblem extends DeploymentException {
    private static final long serialVersionUID = 1L;

    ConfigurationProblem(String message) {
        super(message);
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
        return this;
    }
}
