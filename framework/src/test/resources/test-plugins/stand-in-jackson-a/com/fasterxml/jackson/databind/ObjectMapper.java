package com.fasterxml.jackson.databind;

/** Not Jackson: a stand-in with the same class name and an incompatible version(), bundled by test plugin jackson-user-a. */
public class ObjectMapper {
    public String version() {
        return "stand-in A";
    }
}
