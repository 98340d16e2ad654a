// Command hello is the program testbin's test builds.
package main

import "fmt"

func main() { fmt.Println("hello") }
