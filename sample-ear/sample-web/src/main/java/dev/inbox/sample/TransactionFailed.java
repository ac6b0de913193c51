package dev.inbox.sample;

import jakarta.transaction.TransactionalException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/** A request's JTA transaction that cannot begin or commit (the database out of reach): 503 with {@code Retry-After}. */
@Provider
public class TransactionFailed implements ExceptionMapper<TransactionalException> {

    @Override
    public Response toResponse(TransactionalException e) {
        return DatabaseOutage.unavailable(e);
    }
}
