package org.tandembroker.tools.haadmin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/** {@code ha-admin --json}: results as indented JSON (Jackson; records by their components, in order). */
final class Json {
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private Json() {
    }

    /** The JSON of {@code value}, with a final line separator. */
    static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value) + System.lineSeparator();
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write " + value.getClass().getSimpleName() + " as JSON: "
                    + e.getOriginalMessage(), e);
        }
    }
}
