package dev.inbox.sample;

import jakarta.json.bind.annotation.JsonbPropertyOrder;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.ConstraintViolationException;
import jakarta.validation.Path;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/** A request Jakarta Validation refuses: 400, naming each field and the rule it breaks. */
@Provider
public class InvalidRequest implements ExceptionMapper<ConstraintViolationException> {

    /** One broken rule. */
    @JsonbPropertyOrder({"field", "rule"})
    public record Violation(String field, String rule) {}

    @Override
    public Response toResponse(ConstraintViolationException e) {
        List<Violation> violations = e.getConstraintViolations().stream()
                .map(v -> new Violation(field(v), v.getMessage()))
                .sorted(Comparator.comparing(Violation::field)).toList();
        return Response.status(Response.Status.BAD_REQUEST).type(MediaType.APPLICATION_JSON)
                .entity(Map.of("error", "the request is not valid", "violations", violations)).build();
    }

    /** The last name of the property path ({@code issue.request.order} is {@code order}); the body itself for a missing one. */
    private static String field(ConstraintViolation<?> violation) {
        String field = "body";
        for (Path.Node node : violation.getPropertyPath()) {
            if (node.getKind() == jakarta.validation.ElementKind.PROPERTY) {
                field = node.getName();
            }
        }
        return field;
    }
}
